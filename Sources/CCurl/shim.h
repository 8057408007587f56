// CCurl: libcurl for Swift.
//
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot call, and
// CURL_GLOBAL_ALL / CURLVERSION_NOW are macros Swift cannot import. These static inline wrappers give each
// use a typed signature. No .c file: everything here is header-only.
#ifndef FEATURELOAD_CCURL_SHIM_H
#define FEATURELOAD_CCURL_SHIM_H

#include <curl/curl.h>

// MARK: easy setopt

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return (curl_easy_setopt)(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return (curl_easy_setopt)(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return (curl_easy_setopt)(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return (curl_easy_setopt)(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return (curl_easy_setopt)(handle, option, value);
}

/// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION (both take a curl_write_callback prototype).
static inline CURLcode ccurl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return (curl_easy_setopt)(handle, option, value);
}

/// For CURLOPT_READFUNCTION.
static inline CURLcode ccurl_easy_setopt_read_callback(CURL *handle, curl_read_callback value) {
    return (curl_easy_setopt)(handle, CURLOPT_READFUNCTION, value);
}

static inline CURLcode ccurl_easy_setopt_prereq_callback(CURL *handle, curl_prereq_callback value) {
    return (curl_easy_setopt)(handle, CURLOPT_PREREQFUNCTION, value);
}

// CURL_PREREQFUNC_OK and CURL_PREREQFUNC_ABORT are macros.
static inline int ccurl_prereq_ok(void) { return CURL_PREREQFUNC_OK; }
static inline int ccurl_prereq_abort(void) { return CURL_PREREQFUNC_ABORT; }

// MARK: easy getinfo

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return (curl_easy_getinfo)(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return (curl_easy_getinfo)(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return (curl_easy_getinfo)(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return (curl_easy_getinfo)(handle, info, value);
}

// MARK: multi

static inline CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return (curl_multi_setopt)(handle, option, value);
}

/// The result of a CURLMSG_DONE message (an anonymous union member in C).
static inline CURLcode ccurl_message_result(const CURLMsg *message) {
    return message->data.result;
}

// MARK: macros

static inline long ccurl_global_all(void) {
    return CURL_GLOBAL_ALL;
}

static inline CURLversion ccurl_version_now(void) {
    return CURLVERSION_NOW;
}

static inline int ccurl_error_size(void) {
    return CURL_ERROR_SIZE;
}

// MARK: driver thread

#ifdef __linux__
#include <sys/prctl.h>
#endif

/// Names the calling thread (Linux: 15 characters shown by `top -H` and /proc/self/task/*/comm); no-op elsewhere.
static inline void ccurl_name_current_thread(const char *name) {
#ifdef __linux__
    prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
#else
    (void)name;
#endif
}

// MARK: gzip request bodies

#include <zlib.h>

/// The most bytes `ccurl_gzip` can write for `length` input bytes (zlib's bound plus the gzip header and trailer).
static inline size_t ccurl_gzip_bound(size_t length) {
    return (size_t)compressBound((uLong)length) + 18;
}

/// Compresses `length` bytes of `input` into one gzip member (RFC 1952) at `level` (1 fastest … 9 smallest).
/// Writes at most `capacity` bytes (`ccurl_gzip_bound` suffices) and stores the count in `written`.
/// Returns Z_OK, or a zlib error (Z_BUF_ERROR when `capacity` was too small). Inputs must be under 4 GiB.
static inline int ccurl_gzip(const unsigned char *input, size_t length, unsigned char *output, size_t capacity,
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

#endif
