// As on Apple's systems, CoreMedia sits on CoreVideo and brings its types along
// (`CMSampleBuffer` carries `CVImageBuffer`s; `FourCharCode`/`OSType` come from there).
@_exported import CoreVideo
