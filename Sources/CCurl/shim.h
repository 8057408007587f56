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

// MARK: readiness events (Linux)
//
// On Linux the driver waits on its own epoll set and tells libcurl which sockets are ready
// (curl_multi_socket_action), instead of curl_multi_perform, which visits every transfer and polls each socket
// on every round. Elsewhere the driver keeps curl_multi_perform and curl_multi_poll.

#ifdef __linux__
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

static inline CURLMcode ccurl_multi_setopt_pointer(CURLM *handle, CURLMoption option, void *value) {
    return (curl_multi_setopt)(handle, option, value);
}

static inline CURLMcode ccurl_multi_setopt_socket_callback(CURLM *handle, curl_socket_callback value) {
    return (curl_multi_setopt)(handle, CURLMOPT_SOCKETFUNCTION, value);
}

static inline CURLMcode ccurl_multi_setopt_timer_callback(CURLM *handle, curl_multi_timer_callback value) {
    return (curl_multi_setopt)(handle, CURLMOPT_TIMERFUNCTION, value);
}

/// CURL_SOCKET_TIMEOUT (a macro of a macro) for curl_multi_socket_action.
static inline curl_socket_t ccurl_socket_timeout(void) { return CURL_SOCKET_TIMEOUT; }

static inline int ccurl_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/// An eventfd that wakes the driver's epoll_wait from other threads.
static inline int ccurl_wakeup_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

static inline void ccurl_wakeup_signal(int fd) {
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;  // EAGAIN: the counter is already non-zero, so the driver wakes anyway
}

static inline void ccurl_wakeup_drain(int fd) {
    uint64_t value;
    ssize_t count = read(fd, &value, sizeof value);
    (void)count;
}

/// Puts `fd` in the set for what libcurl's socket callback asks (CURL_POLL_IN, _OUT or _INOUT): a change when it is
/// already there (`registered`), else an addition; either falls back to the other when the set disagrees (a
/// descriptor closed, or its number reused). Returns 0, or -1 with errno.
static inline int ccurl_epoll_watch(int epoll, int fd, int what, int registered) {
    struct epoll_event event;
    event.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
    event.data.u64 = 0;
    event.data.fd = fd;
    if (epoll_ctl(epoll, registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event) == 0) return 0;
    if (errno != (registered ? ENOENT : EEXIST)) return -1;
    return epoll_ctl(epoll, registered ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event);
}

/// Takes `fd` out of the set; one already closed has left it by itself. Returns 0, or -1 with errno.
static inline int ccurl_epoll_forget(int epoll, int fd) {
    if (epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL) == 0 || errno == ENOENT || errno == EBADF) return 0;
    return -1;
}

/// Waits up to `timeout` milliseconds (0: do not wait) and stores, for each ready descriptor, its number in `fds`
/// and libcurl's CURL_CSELECT_* bits in `bits`. Returns the count (at most `capacity`), or -1 with errno.
static inline int ccurl_epoll_wait(int epoll, int *fds, int *bits, int capacity, int timeout) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, events, capacity, timeout);
    for (int index = 0; index < count; index++) {
        uint32_t ready = events[index].events;
        fds[index] = events[index].data.fd;
        // An error reads as readable too, as libcurl's own poll takes it: the read then fails with the socket's
        // error (CURLE_RECV_ERROR and its errno) rather than a bare "select/poll returned error" (CURLE_SEND_ERROR).
        bits[index] = ((ready & (EPOLLIN | EPOLLHUP | EPOLLERR)) ? CURL_CSELECT_IN : 0)
            | ((ready & EPOLLOUT) ? CURL_CSELECT_OUT : 0) | ((ready & EPOLLERR) ? CURL_CSELECT_ERR : 0);
    }
    return count;
}
#endif

#endif
