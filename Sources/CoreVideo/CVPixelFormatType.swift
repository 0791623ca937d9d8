// Pixel format type constants (CVPixelBuffer.h), with Apple's values. Every format declared here can be
// allocated: its plane geometry is in `PixelFormatLayout`. Apple declares many more formats (Bayer, packed
// 10-bit, lossless/lossy compressed...); those are left out rather than declared and then refused.

// MARK: Chunky RGB and grey

/// 32-bit ARGB, 8 bits per component, alpha first. Apple's value is 32 (0x20), not a FourCC.
public let kCVPixelFormatType_32ARGB: OSType = 0x0000_0020
/// 32-bit BGRA, 8 bits per component (`'BGRA'`): the usual format for CPU pixel access.
public let kCVPixelFormatType_32BGRA: OSType = 0x4247_5241
/// 32-bit ABGR, 8 bits per component (`'ABGR'`).
public let kCVPixelFormatType_32ABGR: OSType = 0x4142_4752
/// 32-bit RGBA, 8 bits per component (`'RGBA'`).
public let kCVPixelFormatType_32RGBA: OSType = 0x5247_4241
/// 24-bit RGB, 8 bits per component. Apple's value is 24 (0x18), not a FourCC.
public let kCVPixelFormatType_24RGB: OSType = 0x0000_0018
/// 24-bit BGR, 8 bits per component (`'24BG'`).
public let kCVPixelFormatType_24BGR: OSType = 0x3234_4247
/// One 8-bit component per pixel (`'L008'`), e.g. luma only.
public let kCVPixelFormatType_OneComponent8: OSType = 0x4C30_3038
/// One 16-bit little-endian component per pixel (`'L016'`).
public let kCVPixelFormatType_OneComponent16: OSType = 0x4C30_3136

// MARK: Chunky 4:2:2 YCbCr

/// 4:2:2 Cb Y'0 Cr Y'1, 8 bits per component, video range (`'2vuy'`, UYVY).
public let kCVPixelFormatType_422YpCbCr8: OSType = 0x3276_7579
/// 4:2:2 Y'0 Cb Y'1 Cr, 8 bits per component, video range (`'yuvs'`, YUY2).
public let kCVPixelFormatType_422YpCbCr8_yuvs: OSType = 0x7975_7673

// MARK: Planar 8-bit YCbCr

/// Bi-planar 4:2:0, 8-bit: a Y' plane and an interleaved CbCr plane, video range (luma 16–235) (`'420v'`, NV12).
public let kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: OSType = 0x3432_3076
/// Bi-planar 4:2:0, 8-bit, full range (luma 0–255) (`'420f'`, NV12).
public let kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: OSType = 0x3432_3066
/// Bi-planar 4:2:2, 8-bit, video range (`'422v'`, NV16).
public let kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange: OSType = 0x3432_3276
/// Bi-planar 4:2:2, 8-bit, full range (`'422f'`, NV16).
public let kCVPixelFormatType_422YpCbCr8BiPlanarFullRange: OSType = 0x3432_3266
/// Bi-planar 4:4:4, 8-bit, video range (`'444v'`, NV24).
public let kCVPixelFormatType_444YpCbCr8BiPlanarVideoRange: OSType = 0x3434_3476
/// Bi-planar 4:4:4, 8-bit, full range (`'444f'`, NV24).
public let kCVPixelFormatType_444YpCbCr8BiPlanarFullRange: OSType = 0x3434_3466
/// Tri-planar 4:2:0, 8-bit (Y', Cb, Cr planes), video range (`'y420'`, I420).
public let kCVPixelFormatType_420YpCbCr8Planar: OSType = 0x7934_3230
/// Tri-planar 4:2:0, 8-bit, full range (`'f420'`, I420).
public let kCVPixelFormatType_420YpCbCr8PlanarFullRange: OSType = 0x6634_3230

// MARK: Planar 10-bit YCbCr (each sample in the high 10 bits of a little-endian 16-bit word, as FFmpeg's P010)

/// Bi-planar 4:2:0, 10-bit, video range (`'x420'`, P010).
public let kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange: OSType = 0x7834_3230
/// Bi-planar 4:2:0, 10-bit, full range (`'xf20'`, P010).
public let kCVPixelFormatType_420YpCbCr10BiPlanarFullRange: OSType = 0x7866_3230
/// Bi-planar 4:2:2, 10-bit, video range (`'x422'`, P210).
public let kCVPixelFormatType_422YpCbCr10BiPlanarVideoRange: OSType = 0x7834_3232
/// Bi-planar 4:2:2, 10-bit, full range (`'xf22'`, P210).
public let kCVPixelFormatType_422YpCbCr10BiPlanarFullRange: OSType = 0x7866_3232
/// Bi-planar 4:4:4, 10-bit, video range (`'x444'`, P410).
public let kCVPixelFormatType_444YpCbCr10BiPlanarVideoRange: OSType = 0x7834_3434
/// Bi-planar 4:4:4, 10-bit, full range (`'xf44'`, P410).
public let kCVPixelFormatType_444YpCbCr10BiPlanarFullRange: OSType = 0x7866_3434
