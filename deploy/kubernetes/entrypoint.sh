#!/bin/sh
# featureload in Kubernetes: one generator of an Indexed Job, or the merge of the generators' reports.
#
#   entrypoint.sh [generate] [RUN OPTION …]   run this pod's share of the test (k6's execution segments)
#   entrypoint.sh merge                       wait for every generator's report and merge them into one verdict
#
# Environment:
#   GENERATORS            N, the number of generators: the Indexed Job's completions (both modes; N ≥ 1)
#   JOB_COMPLETION_INDEX  this generator's index, 0 … N-1; an Indexed Job sets it (generate)
#   TARGET                the …/FeatureServer URL under test (generate)
#   SCENARIO              the scenario file (generate; default /scenario/scenario.yaml)
#   START_AT              optional RFC 3339 time at which every generator starts its load (generate)
#   RUN_ID                optional: the run_id label of the generator's live metrics (generate; the merge's REPORTS
#                         folder in the manifests)
#   METRICS_LISTEN        HOST:PORT of the generator's Prometheus /metrics while it runs (generate; default
#                         0.0.0.0:9464; empty for none; port 0 picks a free one, printed as "metrics: URL")
#   METRICS_LINGER        how long /metrics stays up after the run, for a last scrape (generate; default 15s)
#   REPORTS               the directory every pod shares (default /reports); generator i writes to
#                         $REPORTS/generator-i, the merge to $REPORTS/merged.json and merged.md
#   MERGE_TIMEOUT         seconds the merge waits for the generators' reports (merge; default 600)
#   FEATURELOAD           the featureload binary (default: featureload on PATH)
# RUN OPTIONs after the mode go to `featureload run` as they are, e.g. --token-env ARCGIS_TOKEN or --ca-file FILE.
#
# Generator i of N runs the segment i/N:(i+1)/N of the sequence 0,1/N,2/N,…,1 (fractions left unreduced:
# featureload reads them exactly), so the N generators run the whole test between them, each iteration once.
# When featureload has finished, the generator writes its exit code to $REPORTS/generator-i/exit-code; the merge
# waits for that file and a report.json in every generator's directory (a report is only complete once its run
# has ended), and takes the newest report.json of each.
#
# Exit codes: generate: featureload run's (0 passed, 2 invalid input, 130 interrupted, …), except 1; merge:
# featureload report merge's (0 the merged run passed, 1 it failed, 2 the reports cannot be merged), 2 also when
# a generator ended without a report or the reports are not all there within MERGE_TIMEOUT; both: 2 when the
# environment above is missing or wrong (with a message saying which variable and why).
set -eu

featureload=${FEATURELOAD:-featureload}
reports=${REPORTS:-/reports}

fail() {
    printf 'entrypoint: %s\n' "$*" >&2
    exit 2
}

# Whether $1 is a whole number written without sign or leading zeros, short enough for shell arithmetic.
is_count() {
    case $1 in
        0) return 0 ;;
        [1-9] | [1-9]*[0-9]) ;;
        *) return 1 ;;
    esac
    case $1 in *[!0-9]*) return 1 ;; esac
    [ "${#1}" -le 9 ]
}

generators() {
    [ -n "${GENERATORS:-}" ] || fail "GENERATORS is not set: give the number of generators (the Job's completions), e.g. GENERATORS=4"
    if ! { is_count "$GENERATORS" && [ "$GENERATORS" -ge 1 ]; }; then
        fail "GENERATORS=$GENERATORS: give the number of generators as a whole number, 1 or more"
    fi
    printf '%s\n' "$GENERATORS"
}

generate() {
    n=$(generators) || exit 2
    [ -n "${JOB_COMPLETION_INDEX:-}" ] ||
        fail "JOB_COMPLETION_INDEX is not set: run as a pod of an Indexed Job (completionMode: Indexed), or set it to 0 … $((n - 1))"
    i=$JOB_COMPLETION_INDEX
    if ! { is_count "$i" && [ "$i" -lt "$n" ]; }; then
        fail "JOB_COMPLETION_INDEX=$i: with GENERATORS=$n it must be 0 … $((n - 1)); make the Job's completions equal GENERATORS"
    fi
    [ -n "${TARGET:-}" ] || fail "TARGET is not set: give the URL of the …/FeatureServer under test"
    scenario=${SCENARIO:-/scenario/scenario.yaml}
    if ! { [ -f "$scenario" ] && [ -r "$scenario" ]; }; then
        fail "SCENARIO=$scenario: no such readable file; mount the scenario ConfigMap there or set SCENARIO"
    fi

    segment="$i/$n:$((i + 1))/$n"
    sequence=0
    k=1
    while [ "$k" -lt "$n" ]; do
        sequence="$sequence,$k/$n"
        k=$((k + 1))
    done
    sequence="$sequence,1"

    out="$reports/generator-$i"
    if ! { mkdir -p "$out" 2>/dev/null && [ -w "$out" ]; }; then
        fail "REPORTS=$reports: cannot write $out; mount the shared volume there, writable by user $(id -u)"
    fi
    rm -f "$out/exit-code"

    set -- "$scenario" "$@"
    echo "entrypoint: generator $i of $n: segment $segment of $sequence, target $TARGET${START_AT:+, start at $START_AT}"
    if [ -n "${START_AT:-}" ]; then
        set -- "$@" --start-at "$START_AT"
    fi
    if [ -n "${RUN_ID:-}" ]; then
        set -- "$@" --run-id "$RUN_ID"
    fi
    metrics=${METRICS_LISTEN-0.0.0.0:9464}
    if [ -n "$metrics" ]; then
        set -- "$@" --metrics-listen "$metrics" --metrics-linger "${METRICS_LINGER:-15s}"
    fi

    # featureload runs in the background so that a SIGTERM to this shell (PID 1 in a pod, which ignores signals it
    # does not trap) reaches it: it then cancels its requests and still writes its reports (exit 130).
    "$featureload" run "$@" --target "$TARGET" --execution-segment "$segment" --execution-segment-sequence "$sequence" \
        --out "$out" --quiet --formats md &
    child=$!
    trap 'kill -TERM "$child" 2>/dev/null || :' TERM INT
    rc=0
    wait "$child" || rc=$?
    while kill -0 "$child" 2>/dev/null; do # the wait above was cut short by a signal: wait for the run itself
        rc=0
        wait "$child" || rc=$?
    done
    trap - TERM INT

    printf '%s\n' "$rc" >"$out/exit-code.tmp" && mv "$out/exit-code.tmp" "$out/exit-code"
    # Exit code 1 means this generator's own thresholds or gates failed. They were judged on its share of the test
    # alone (a share's counts, rates and few samples say little about the whole), so that is no failure of the pod:
    # the test's verdict is the merge's, judged once on every generator's figures together.
    if [ "$rc" -eq 1 ]; then
        echo "entrypoint: generator $i: its share missed a gate; the merge gives the test's verdict"
        exit 0
    fi
    exit "$rc"
}

merge() {
    n=$(generators) || exit 2
    timeout=${MERGE_TIMEOUT:-600}
    is_count "$timeout" || fail "MERGE_TIMEOUT=$timeout: give the seconds to wait for the generators' reports, e.g. 600"
    # The merge may start before any generator has made the run's folder (its Job is applied with theirs).
    if ! { mkdir -p "$reports" 2>/dev/null && [ -w "$reports" ]; }; then
        fail "REPORTS=$reports: cannot write there; mount the generators' shared volume, writable by user $(id -u)"
    fi
    trap 'echo "entrypoint: merge interrupted" >&2; exit 130' TERM INT

    start=$(date +%s)
    last_note=$start
    while :; do
        set --
        missing=""
        k=0
        while [ "$k" -lt "$n" ]; do
            dir="$reports/generator-$k"
            newest=""
            for file in "$dir"/*/report.json; do # sorted: <name>-<UTC time> folders, the newest last
                [ -f "$file" ] && newest=$file
            done
            if [ -f "$dir/exit-code" ]; then
                code=$(cat "$dir/exit-code")
                if [ -z "$newest" ] || { [ "$code" != 0 ] && [ "$code" != 1 ] && [ "$code" != 130 ]; }; then
                    fail "generator-$k: featureload run ended with exit code $code and no report of this run: nothing to merge (see that pod's log)"
                fi
                set -- "$@" "$newest"
            else
                missing="$missing generator-$k"
            fi
            k=$((k + 1))
        done
        [ -n "$missing" ] || break
        now=$(date +%s)
        if [ $((now - start)) -ge "$timeout" ]; then
            fail "no finished report from$missing in $reports after ${timeout}s (MERGE_TIMEOUT)"
        fi
        if [ $((now - last_note)) -ge 30 ]; then
            echo "entrypoint: merge: waiting for$missing ($((now - start))s of ${timeout}s)"
            last_note=$now
        fi
        sleep 1
    done

    echo "entrypoint: merging $n reports: $*"
    rm -f "$reports/merged.json" "$reports/merged.md"
    rc=0
    "$featureload" report merge "$@" -o "$reports/merged.json" || rc=$?
    if [ "$rc" -le 1 ] && [ -f "$reports/merged.json" ]; then
        if "$featureload" report "$reports/merged.json" --format md -o "$reports/merged.md"; then
            cat "$reports/merged.md"
        else
            echo "entrypoint: could not write $reports/merged.md; merged.json holds the result" >&2
        fi
    fi
    exit "$rc"
}

mode=generate
case ${1:-} in
    generate | merge)
        mode=$1
        shift
        ;;
    "" | -*) ;;
    *) fail "unknown mode '$1': give generate (the default) or merge" ;;
esac
case $mode in
    generate) generate "$@" ;;
    merge)
        [ "$#" -eq 0 ] || fail "merge takes no options, got: $*"
        merge
        ;;
esac
