// CZlib: zlib's deflate for Swift, as gzip (RFC 1952): request bodies (FeatureServiceClient's RequestCompression) and
// streamed outputs (GzipStream: raw samples written as .gz). zlib's stream setup is a macro (deflateInit2) and its
// z_stream wants care with lengths, so these static inline wrappers give each use a typed signature. Header-only.
#ifndef FEATURELOAD_CZLIB_SHIM_H
#define FEATURELOAD_CZLIB_SHIM_H

#include <stdlib.h>
#include <zlib.h>

/// The most bytes `czlib_gzip` can write for `length` input bytes (zlib's bound plus the gzip header and trailer).
static inline size_t czlib_gzip_bound(size_t length) {
    return (size_t)compressBound((uLong)length) + 18;
}

/// Compresses `length` bytes of `input` into one gzip member (RFC 1952) at `level` (1 fastest … 9 smallest).
/// Writes at most `capacity` bytes (`czlib_gzip_bound` suffices) and stores the count in `written`.
/// Returns Z_OK, or a zlib error (Z_BUF_ERROR when `capacity` was too small). Inputs must be under 4 GiB.
static inline int czlib_gzip(const unsigned char *input, size_t length, unsigned char *output, size_t capacity,
                             int level, size_t *written) {
    z_stream stream;
    stream.zalloc = Z_NULL;
    stream.zfree = Z_NULL;
    stream.opaque = Z_NULL;
    // windowBits 15 + 16: a gzip wrapper instead of zlib's.
    int status = deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    if (status != Z_OK) return status;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    status = deflate(&stream, Z_FINISH);
    *written = (size_t)stream.total_out;
    deflateEnd(&stream);
    if (status == Z_STREAM_END) return Z_OK;
    return status == Z_OK ? Z_BUF_ERROR : status;
}

/// A gzip stream (RFC 1952) for output written in pieces: `czlib_gzip_stream_open`, `czlib_gzip_stream_deflate`
/// for each piece and then with `finish` set until it returns Z_STREAM_END, and `czlib_gzip_stream_close`.
/// Returns NULL when zlib cannot allocate the stream.
static inline z_stream *czlib_gzip_stream_open(int level) {
    z_stream *stream = (z_stream *)calloc(1, sizeof(z_stream));
    if (stream == NULL) return NULL;
    // windowBits 15 + 16: a gzip wrapper instead of zlib's.
    if (deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

/// Feeds `length` bytes of `input` (under 4 GiB) and writes at most `capacity` compressed bytes to `output`; stores
/// how many input bytes were taken in `consumed` and how many output bytes were written in `written`. While the
/// output fills `capacity`, call again with the rest of the input. Returns Z_OK, Z_BUF_ERROR (nothing to do: not an
/// error), Z_STREAM_END once a `finish` call has written the trailer, or a zlib error.
static inline int czlib_gzip_stream_deflate(z_stream *stream, const unsigned char *input, size_t length, unsigned char *output,
                                            size_t capacity, int finish, size_t *consumed, size_t *written) {
    stream->next_in = (Bytef *)input;
    stream->avail_in = (uInt)length;
    stream->next_out = output;
    stream->avail_out = (uInt)capacity;
    int status = deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH);
    *consumed = length - (size_t)stream->avail_in;
    *written = capacity - (size_t)stream->avail_out;
    return status;
}

/// Frees a stream from `czlib_gzip_stream_open`.
static inline void czlib_gzip_stream_close(z_stream *stream) {
    deflateEnd(stream);
    free(stream);
}

#endif
