// Allocating owned pixel buffers from a size, a format and attributes.

extension CVBuffer {
    /// Allocates an owned pixel buffer as `CVPixelBufferCreate` does: the explicit size and format win over the
    /// attributes; row and plane alignment and initial attachments come from the attributes.
    ///
    /// - Throws: `invalidArgument` for a non-positive size, `invalidPixelFormat` for a format CoreVideo cannot
    ///   lay out, `invalidSize` when the byte count overflows, `allocationFailed` when memory is exhausted.
    package static func allocate(
        width: Int,
        height: Int,
        pixelFormatType: OSType,
        attributes: PixelBufferAttributes = PixelBufferAttributes()
    ) throws(CoreVideoError) -> CVBuffer {
        let layout = try PixelBufferLayout(
            width: width, height: height, pixelFormatType: pixelFormatType, attributes: attributes)
        return try CVBuffer(layout: layout, attachments: attributes.initialAttachments)
    }
}

extension PixelBufferLayout {
    /// Lays out a `width`×`height` buffer of `pixelFormatType` with the alignments the attributes ask for.
    ///
    /// - Throws: `invalidArgument` for a non-positive size, `invalidPixelFormat` for an unknown format,
    ///   `invalidSize` when the byte count overflows.
    package init(
        width: Int,
        height: Int,
        pixelFormatType: OSType,
        attributes: PixelBufferAttributes
    ) throws(CoreVideoError) {
        guard width > 0, height > 0 else { throw .invalidArgument }
        guard let format = PixelFormatLayout.forPixelFormatType(pixelFormatType) else {
            throw .invalidPixelFormat
        }
        try self.init(
            pixelFormat: format, width: width, height: height,
            bytesPerRowAlignment: attributes.bytesPerRowAlignment ?? Self.defaultBytesPerRowAlignment,
            planeAlignment: attributes.planeAlignment ?? Self.defaultPlaneAlignment)
    }
}

extension PixelBufferAttributes {
    /// The attachments a buffer created with these attributes starts with.
    package var initialAttachments: CVBufferAttachmentStore {
        var store = CVBufferAttachmentStore()
        store.propagated = propagatedAttachments
        store.nonPropagated = nonPropagatedAttachments
        return store
    }
}
