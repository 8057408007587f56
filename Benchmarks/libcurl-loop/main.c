// featureload-libcurl-loop: the floor under any libcurl client, for the generator and transport benchmarks.
//
//     featureload-libcurl-loop [--work MICROSECONDS] URL CONNECTIONS SECONDS [BODY_FILE]
//
// A closed loop in C over libcurl's multi interface, as libcurl's own event-loop examples (hiperfifo) drive it:
// CONNECTIONS easy handles, each sent again as soon as its answer arrives, for SECONDS, with an epoll set fed by
// CURLMOPT_SOCKETFUNCTION and curl_multi_socket_action. Options are set once per handle and the answers are
// dropped: no Swift, no request building, no parsing. With BODY_FILE it POSTs that file's bytes as a form
// (application/x-www-form-urlencoded), else it GETs. Only http://127.0.0.1 URLs are taken.
//
// It prints one line, `LIBCURL_LOOP_JSON {...}`: its duration, the requests answered with HTTP 200, the others
// (errors), latency percentiles in microseconds, and its own CPU time (getrusage). Exit 0, or 64 for bad arguments,
// 1 when libcurl cannot start.
//
// --work MICROSECONDS keeps the CPU busy that long after each answer, before its handle is sent again: what a client
// that does that much of its own work a request (building it, reading the answer, recording it) would reach. The
// generator benchmark runs it to show what each microsecond of a client's CPU costs on the machine.
#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>

static int events;
static double timer_due = -1;  // when libcurl wants curl_multi_socket_action(CURL_SOCKET_TIMEOUT); -1: never

static double now_seconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec * 1e-9;
}

static int watch_socket(CURL *easy, curl_socket_t socket, int what, void *multi, void *known) {
    (void)easy;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(events, EPOLL_CTL_DEL, socket, NULL);
        return 0;
    }
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
    event.data.fd = socket;
    if (known) return epoll_ctl(events, EPOLL_CTL_MOD, socket, &event) == 0 ? 0 : -1;
    if (epoll_ctl(events, EPOLL_CTL_ADD, socket, &event) != 0) return -1;
    curl_multi_assign(multi, socket, (void *)1);
    return 0;
}

static int set_timer(CURLM *multi, long milliseconds, void *unused) {
    (void)multi;
    (void)unused;
    timer_due = milliseconds < 0 ? -1 : now_seconds() + (double)milliseconds / 1000.0;
    return 0;
}

static size_t drop(char *data, size_t size, size_t count, void *unused) {
    (void)data;
    (void)unused;
    return size * count;
}

static int compare(const void *left, const void *right) {
    int64_t a = *(const int64_t *)left, b = *(const int64_t *)right;
    return (a > b) - (a < b);
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec * 1e-6 + (double)usage.ru_stime.tv_sec
        + (double)usage.ru_stime.tv_usec * 1e-6;
}

static int usage(const char *problem) {
    fprintf(stderr, "featureload-libcurl-loop: %s\n"
                    "Usage: featureload-libcurl-loop [--work MICROSECONDS] URL CONNECTIONS SECONDS [BODY_FILE]\n"
                    "(URL on http://127.0.0.1, CONNECTIONS 1 to 1024, SECONDS 1 to 3600, MICROSECONDS 0 to 10000)\n", problem);
    return 64;
}

// Keeps this thread busy for `microseconds` of wall time: as much CPU time when the thread keeps its core (the report
// gives the CPU the loop measured, not this).
static void work(double microseconds) {
    double until = now_seconds() + microseconds * 1e-6;
    while (now_seconds() < until) {}
}

int main(int argc, char **argv) {
    double work_microseconds = 0;
    if (argc > 1 && strcmp(argv[1], "--work") == 0) {
        if (argc < 3) return usage("--work needs MICROSECONDS");
        char *end = NULL;
        work_microseconds = strtod(argv[2], &end);
        if (!end || end == argv[2] || *end != '\0' || !(work_microseconds >= 0 && work_microseconds <= 10000))
            return usage("--work MICROSECONDS must be a number from 0 to 10000");
        argv += 2;
        argc -= 2;
    }
    if (argc < 4 || argc > 5) return usage("wrong number of arguments");
    const char *url = argv[1];
    if (strncmp(url, "http://127.0.0.1:", 17) != 0 && strncmp(url, "http://127.0.0.1/", 17) != 0)
        return usage("load goes to http://127.0.0.1 only");
    long connections = strtol(argv[2], NULL, 10);
    long seconds = strtol(argv[3], NULL, 10);
    if (connections < 1 || connections > 1024) return usage("CONNECTIONS must be 1 to 1024");
    if (seconds < 1 || seconds > 3600) return usage("SECONDS must be 1 to 3600");
    char *body = NULL;
    long body_length = 0;
    if (argc == 5) {
        FILE *file = fopen(argv[4], "rb");
        if (!file) return usage("cannot read BODY_FILE");
        fseek(file, 0, SEEK_END);
        body_length = ftell(file);
        fseek(file, 0, SEEK_SET);
        body = malloc((size_t)body_length + 1);
        if (!body || fread(body, 1, (size_t)body_length, file) != (size_t)body_length) return usage("cannot read BODY_FILE");
        fclose(file);
    }

    if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK) return 1;
    events = epoll_create1(EPOLL_CLOEXEC);
    CURLM *multi = curl_multi_init();
    if (events < 0 || !multi) return 1;
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, watch_socket);
    curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, multi);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, set_timer);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, connections);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections);
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/x-www-form-urlencoded");
    headers = curl_slist_append(headers, "Expect:");
    double *started = calloc((size_t)connections, sizeof(double));
    size_t capacity = 1 << 16, answered = 0, errors = 0;
    int64_t *latencies = malloc(capacity * sizeof(int64_t));
    if (!started || !latencies) return 1;

    double cpu_before = cpu_seconds();
    double start = now_seconds(), end = start + (double)seconds;
    for (long index = 0; index < connections; index++) {
        CURL *easy = curl_easy_init();
        if (!easy) return 1;
        curl_easy_setopt(easy, CURLOPT_URL, url);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, drop);
        curl_easy_setopt(easy, CURLOPT_PRIVATE, (void *)(intptr_t)index);
        if (body) {
            curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body);
            curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
            curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
        }
        started[index] = now_seconds();
        curl_multi_add_handle(multi, easy);
    }

    int running = 1;
    struct epoll_event ready[64];
    while (running > 0) {
        double now = now_seconds();
        if (timer_due >= 0 && now >= timer_due) {
            timer_due = -1;  // a one-shot timer: libcurl sets the next one from inside the call
            curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
        }
        int wait = timer_due < 0 ? 100 : (int)((timer_due - now) * 1000.0 + 0.999);
        int count = epoll_wait(events, ready, 64, wait < 0 ? 0 : (wait > 100 ? 100 : wait));
        for (int index = 0; index < count; index++) {
            uint32_t bits = ready[index].events;
            int action = ((bits & (EPOLLIN | EPOLLHUP)) ? CURL_CSELECT_IN : 0) | ((bits & EPOLLOUT) ? CURL_CSELECT_OUT : 0)
                | ((bits & EPOLLERR) ? CURL_CSELECT_ERR : 0);
            curl_multi_socket_action(multi, ready[index].data.fd, action, &running);
        }
        CURLMsg *message;
        int left;
        now = now_seconds();
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            CURLcode result = message->data.result;
            long status = 0;
            void *slot = NULL;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, &slot);
            curl_multi_remove_handle(multi, easy);
            long index = (long)(intptr_t)slot;
            // The work ends before the handle goes out again, as a client's own work a request does. Its latency counts
            // from here, when the handle is given back to libcurl (which sends it once the answers read with it are
            // handled, as without --work).
            double sent = now;
            if (work_microseconds > 0) {
                work(work_microseconds);
                sent = now_seconds();
            }
            if (result == CURLE_OK && status == 200) {
                if (answered == capacity) {
                    capacity *= 2;
                    latencies = realloc(latencies, capacity * sizeof(int64_t));
                    if (!latencies) return 1;
                }
                latencies[answered++] = (int64_t)((now - started[index]) * 1e6);
            } else {
                errors++;
            }
            // The loop is bounded in time: past the end, a handle is not sent again, and the loop ends when none runs.
            if (sent < end) {
                started[index] = sent;
                curl_multi_add_handle(multi, easy);
            } else {
                curl_easy_cleanup(easy);
            }
        }
        if (now >= end + 10) break;  // answers that never come do not hold the loop
        if (now < end && running == 0) running = 1;  // every handle was just added again: the loop goes on
    }
    double duration = now_seconds() - start;
    double cpu = cpu_seconds() - cpu_before;
    qsort(latencies, answered, sizeof(int64_t), compare);
    int64_t p50 = answered ? latencies[(answered - 1) / 2] : 0;
    int64_t p99 = answered ? latencies[(size_t)((double)(answered - 1) * 0.99)] : 0;
    printf("LIBCURL_LOOP_JSON {\"durationMicroseconds\":%.0f,\"requests\":%zu,\"errors\":%zu,"
           "\"latencyMicroseconds\":{\"p50\":%lld,\"p99\":%lld},\"cpuMicroseconds\":%.0f,\"workMicroseconds\":%g,\"libcurl\":\"%s\"}\n",
           duration * 1e6, answered, errors, (long long)p50, (long long)p99, cpu * 1e6, work_microseconds,
           curl_version_info(CURLVERSION_NOW)->version);
    curl_multi_cleanup(multi);
    curl_slist_free_all(headers);
    curl_global_cleanup();
    return 0;
}
