// Image-buffer attachment keys and values (CVImageBuffer.h) with Apple's string values. The output layer tags
// every vended buffer with its colour description through these, as Apple's decoders do.

// MARK: Colour description keys

/// The YCbCr to RGB conversion matrix (a string, one of the `kCVImageBufferYCbCrMatrix_` values).
public let kCVImageBufferYCbCrMatrixKey: CFString = "CVImageBufferYCbCrMatrix"
/// The colour primaries (a string, one of the `kCVImageBufferColorPrimaries_` values).
public let kCVImageBufferColorPrimariesKey: CFString = "CVImageBufferColorPrimaries"
/// The transfer function (a string, one of the `kCVImageBufferTransferFunction_` values).
public let kCVImageBufferTransferFunctionKey: CFString = "CVImageBufferTransferFunction"

// MARK: YCbCr matrices

/// ITU-R BT.709 (HD).
public let kCVImageBufferYCbCrMatrix_ITU_R_709_2: CFString = "ITU_R_709_2"
/// ITU-R BT.601 (SD).
public let kCVImageBufferYCbCrMatrix_ITU_R_601_4: CFString = "ITU_R_601_4"
/// SMPTE 240M.
public let kCVImageBufferYCbCrMatrix_SMPTE_240M_1995: CFString = "SMPTE_240M_1995"
/// ITU-R BT.2020 non-constant luminance.
public let kCVImageBufferYCbCrMatrix_ITU_R_2020: CFString = "ITU_R_2020"

// MARK: Colour primaries

/// ITU-R BT.709 primaries (also sRGB's).
public let kCVImageBufferColorPrimaries_ITU_R_709_2: CFString = "ITU_R_709_2"
/// EBU Tech 3213 (PAL) primaries.
public let kCVImageBufferColorPrimaries_EBU_3213: CFString = "EBU_3213"
/// SMPTE C (NTSC) primaries.
public let kCVImageBufferColorPrimaries_SMPTE_C: CFString = "SMPTE_C"
/// P22 phosphor primaries.
public let kCVImageBufferColorPrimaries_P22: CFString = "P22"
/// DCI-P3 primaries (DCI white point).
public let kCVImageBufferColorPrimaries_DCI_P3: CFString = "DCI_P3"
/// Display P3 primaries (D65 white point).
public let kCVImageBufferColorPrimaries_P3_D65: CFString = "P3_D65"
/// ITU-R BT.2020 primaries.
public let kCVImageBufferColorPrimaries_ITU_R_2020: CFString = "ITU_R_2020"

// MARK: Transfer functions

/// ITU-R BT.709 transfer function (also used for BT.601 content).
public let kCVImageBufferTransferFunction_ITU_R_709_2: CFString = "ITU_R_709_2"
/// SMPTE 240M transfer function.
public let kCVImageBufferTransferFunction_SMPTE_240M_1995: CFString = "SMPTE_240M_1995"
/// A pure power curve whose exponent is in `kCVImageBufferGammaLevelKey`.
public let kCVImageBufferTransferFunction_UseGamma: CFString = "UseGamma"
/// The sRGB transfer function (IEC 61966-2-1).
public let kCVImageBufferTransferFunction_sRGB: CFString = "IEC_sRGB"
/// Linear light.
public let kCVImageBufferTransferFunction_Linear: CFString = "Linear"
/// ITU-R BT.2020 transfer function (same curve as BT.709).
public let kCVImageBufferTransferFunction_ITU_R_2020: CFString = "ITU_R_2020"
/// SMPTE ST 2084 (PQ), for HDR10.
public let kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ: CFString = "SMPTE_ST_2084_PQ"
/// ITU-R BT.2100 hybrid log-gamma.
public let kCVImageBufferTransferFunction_ITU_R_2100_HLG: CFString = "ITU_R_2100_HLG"
/// SMPTE ST 428-1 (DCDM).
public let kCVImageBufferTransferFunction_SMPTE_ST_428_1: CFString = "SMPTE_ST_428_1"

/// The gamma exponent for `kCVImageBufferTransferFunction_UseGamma` (a number).
public let kCVImageBufferGammaLevelKey: CFString = "CVImageBufferGammaLevel"

// MARK: HDR metadata

/// The mastering display's colour volume (HDR10 static metadata, SMPTE ST 2086), as Apple's
/// `kCVImageBufferMasteringDisplayColorVolumeKey`: 24 bytes of `Data`, big-endian, in the order of the HEVC SEI message —
/// the display primaries green, blue, red (x then y, `UInt16` in units of 0.00002), the white point (x, y, same units),
/// the maximum then minimum luminance (`UInt32` in units of 0.0001 cd/m²).
public let kCVImageBufferMasteringDisplayColorVolumeKey: CFString = "MasteringDisplayColorVolume"
/// The content light level (HDR10 static metadata, CTA-861.3), as Apple's `kCVImageBufferContentLightLevelInfoKey`:
/// 4 bytes of `Data`, big-endian — MaxCLL then MaxFALL, `UInt16` in cd/m².
public let kCVImageBufferContentLightLevelInfoKey: CFString = "ContentLightLevelInfo"

// MARK: Chroma siting

/// Where chroma samples sit relative to luma in the top (or only) field (a string, one of the
/// `kCVImageBufferChromaLocation_` values).
public let kCVImageBufferChromaLocationTopFieldKey: CFString = "CVImageBufferChromaLocationTopField"
/// Where chroma samples sit relative to luma in the bottom field.
public let kCVImageBufferChromaLocationBottomFieldKey: CFString = "CVImageBufferChromaLocationBottomField"
/// Chroma sited with the left luma sample, vertically centred (MPEG-2, H.264 default).
public let kCVImageBufferChromaLocation_Left: CFString = "Left"
/// Chroma centred between luma samples (MPEG-1, JPEG).
public let kCVImageBufferChromaLocation_Center: CFString = "Center"
/// Chroma co-sited with the top-left luma sample (BT.2020 / HEVC HDR).
public let kCVImageBufferChromaLocation_TopLeft: CFString = "TopLeft"
/// Chroma sited at the top, horizontally centred.
public let kCVImageBufferChromaLocation_Top: CFString = "Top"
/// Chroma sited at the bottom left.
public let kCVImageBufferChromaLocation_BottomLeft: CFString = "BottomLeft"
/// Chroma sited at the bottom, horizontally centred.
public let kCVImageBufferChromaLocation_Bottom: CFString = "Bottom"

// MARK: Geometry

/// The clean aperture: a dictionary with `kCVImageBufferCleanApertureWidthKey`, `...HeightKey`,
/// `...HorizontalOffsetKey` and `...VerticalOffsetKey` (numbers; offsets are from the image centre).
public let kCVImageBufferCleanApertureKey: CFString = "CVImageBufferCleanAperture"
/// Clean aperture width in pixels.
public let kCVImageBufferCleanApertureWidthKey: CFString = "Width"
/// Clean aperture height in pixels.
public let kCVImageBufferCleanApertureHeightKey: CFString = "Height"
/// Horizontal offset of the clean aperture's centre from the image's centre, in pixels.
public let kCVImageBufferCleanApertureHorizontalOffsetKey: CFString = "HorizontalOffset"
/// Vertical offset of the clean aperture's centre from the image's centre, in pixels.
public let kCVImageBufferCleanApertureVerticalOffsetKey: CFString = "VerticalOffset"
/// The pixel aspect ratio: a dictionary with `kCVImageBufferPixelAspectRatioHorizontalSpacingKey` and
/// `...VerticalSpacingKey` (numbers).
public let kCVImageBufferPixelAspectRatioKey: CFString = "CVPixelAspectRatio"
/// Horizontal spacing of the pixel aspect ratio (the numerator).
public let kCVImageBufferPixelAspectRatioHorizontalSpacingKey: CFString = "HorizontalSpacing"
/// Vertical spacing of the pixel aspect ratio (the denominator).
public let kCVImageBufferPixelAspectRatioVerticalSpacingKey: CFString = "VerticalSpacing"
/// The number of fields: 1 for progressive, 2 for interlaced (a number).
public let kCVImageBufferFieldCountKey: CFString = "CVFieldCount"
