#!/usr/bin/env python3
"""What scripts/check-deploy asks of deploy/kubernetes once rendered (kubectl kustomize or render-kustomization):

  env RENDERED JOB               the environment JOB's container gets, as NAME=VALUE lines: envFrom ConfigMaps,
                                 then env (values with $(NAME) expanded as the kubelet does, configMapKeyRef);
                                 secrets and fields of the pod are left out
  agree RENDERED                 every place that needs a run setting (run.env's GENERATORS, RUN_ID, START_AT,
                                 TARGET) says the same: ConfigMap, the Jobs' counts, each pod's environment
  changed BEFORE AFTER NAME VAL  AFTER is BEFORE rendered with NAME=VAL in run.env: every place that needs NAME
                                 now says VAL, and nothing else in the manifests changed
  same RENDERED OTHER           two renderings hold the same resources (kubectl kustomize's and render-kustomization's)
  podmonitor RENDERED FILE       FILE is a PodMonitor that selects the generator pods, by a port they name, and the
                                 pods' prometheus.io annotations, metrics port and METRICS_LISTEN agree

Prints one line saying what held; on a failure, what did not, and exits 1.
"""
import re
import sys

import yaml

RUN_CONFIGMAP = "featureload-run"
GENERATORS_JOB = "featureload-generators"
MERGE_JOB = "featureload-merge"


def load(path):
    with open(path, encoding="utf-8") as handle:
        return {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(handle) if d}


def failed(message):
    print(message)
    sys.exit(1)


def container(documents, job):
    return documents[("Job", job)]["spec"]["template"]["spec"]["containers"][0]


def environment(documents, job):
    spec = container(documents, job)
    env = {}
    for source in spec.get("envFrom", []):
        reference = source.get("configMapRef")
        if reference:
            env.update(documents[("ConfigMap", reference["name"])].get("data", {}))
    for variable in spec.get("env", []):
        if "value" in variable:
            env[variable["name"]] = re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)), variable["value"])
        elif "configMapKeyRef" in variable.get("valueFrom", {}):
            reference = variable["valueFrom"]["configMapKeyRef"]
            env[variable["name"]] = documents[("ConfigMap", reference["name"])]["data"][reference["key"]]
    return env


def places(documents):
    """Every place each run setting must show up, and what it says there."""
    data = documents[("ConfigMap", RUN_CONFIGMAP)]["data"]
    generator = environment(documents, GENERATORS_JOB)
    merge = environment(documents, MERGE_JOB)
    job = documents[("Job", GENERATORS_JOB)]["spec"]
    reports = lambda env: env.get("REPORTS", "").rsplit("/", 1)[-1]  # /reports/$(RUN_ID)
    return {
        "GENERATORS": {
            "run.env": data.get("GENERATORS"),
            "generators' completions": str(job.get("completions")),
            "generators' parallelism": str(job.get("parallelism")),
            "generator pods' GENERATORS": generator.get("GENERATORS"),
            "merge pod's GENERATORS": merge.get("GENERATORS"),
        },
        "RUN_ID": {
            "run.env": data.get("RUN_ID"),
            "generator pods' RUN_ID": generator.get("RUN_ID"),
            "generator pods' REPORTS folder": reports(generator),
            "merge pod's RUN_ID": merge.get("RUN_ID"),
            "merge pod's REPORTS folder": reports(merge),
        },
        "START_AT": {"run.env": data.get("START_AT"), "generator pods' START_AT": generator.get("START_AT")},
        "TARGET": {"run.env": data.get("TARGET"), "generator pods' TARGET": generator.get("TARGET")},
    }


def agree(documents):
    problems = []
    for name, where in places(documents).items():
        if len(set(where.values())) != 1:
            problems.append(f"{name} disagrees: " + ", ".join(f"{place} {value!r}" for place, value in where.items()))
    return problems


def flatten(node, path=""):
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            out.update(flatten(value, f"{path}.{key}" if path else str(key)))
        return out
    if isinstance(node, list):
        out = {}
        for index, value in enumerate(node):
            out.update(flatten(value, f"{path}[{index}]"))
        return out
    return {path: node}


def changed(before, after, name, value):
    where = places(after)[name]
    wrong = {place: said for place, said in where.items() if said != value}
    if wrong:
        failed(f"{name}={value} in run.env, but " + ", ".join(f"{place} says {said!r}" for place, said in wrong.items()))
    old = {f"{kind}/{key}: {path}": v for (kind, key), d in before.items() for path, v in flatten(d).items()}
    new = {f"{kind}/{key}: {path}": v for (kind, key), d in after.items() for path, v in flatten(d).items()}
    differences = sorted(path for path in old.keys() | new.keys() if old.get(path) != new.get(path))
    allowed = {f"ConfigMap/{RUN_CONFIGMAP}: data.{name}"}
    if name == "GENERATORS":
        allowed |= {f"Job/{GENERATORS_JOB}: spec.completions", f"Job/{GENERATORS_JOB}: spec.parallelism"}
    if set(differences) != allowed:
        failed(f"{name}={value} in run.env changed {differences}, want exactly {sorted(allowed)}")
    print(f"{name}={value} in run.env reaches all {len(where)} places ({', '.join(where)}); nothing else changed")


def podmonitor(documents, path):
    with open(path, encoding="utf-8") as handle:
        monitor = yaml.safe_load(handle)
    problems = []
    if (monitor.get("apiVersion"), monitor.get("kind")) != ("monitoring.coreos.com/v1", "PodMonitor"):
        problems.append(f"apiVersion/kind {monitor.get('apiVersion')}/{monitor.get('kind')}, want monitoring.coreos.com/v1 PodMonitor")
    template = documents[("Job", GENERATORS_JOB)]["spec"]["template"]
    labels = template["metadata"].get("labels", {})
    selector = monitor.get("spec", {}).get("selector", {}).get("matchLabels", {})
    if not selector or any(labels.get(key) != value for key, value in selector.items()):
        problems.append(f"selector {selector} does not match the generator pods' labels {labels}")
    for other in documents.values():
        if other["kind"] == "Job" and other["metadata"]["name"] != GENERATORS_JOB:
            other_labels = other["spec"]["template"]["metadata"].get("labels", {})
            if selector and all(other_labels.get(key) == value for key, value in selector.items()):
                problems.append(f"selector {selector} also matches Job {other['metadata']['name']}'s pods")
    ports = {port.get("name"): port["containerPort"] for port in container(documents, GENERATORS_JOB).get("ports", [])}
    endpoints = monitor.get("spec", {}).get("podMetricsEndpoints", [])
    if not endpoints:
        problems.append("no podMetricsEndpoints")
    for endpoint in endpoints:
        if endpoint.get("port") not in ports:
            problems.append(f"port {endpoint.get('port')!r} is not a named port of the generator container {sorted(ports)}")
        if endpoint.get("path", "/metrics") != "/metrics":
            problems.append(f"path {endpoint.get('path')}, want /metrics")
    annotations = template["metadata"].get("annotations", {})
    listen = environment(documents, GENERATORS_JOB).get("METRICS_LISTEN", "0.0.0.0:9464")
    port = ports.get("metrics")
    said = {
        "prometheus.io/port": annotations.get("prometheus.io/port"),
        "containerPort metrics": str(port),
        "METRICS_LISTEN": listen.rsplit(":", 1)[-1],
    }
    if len(set(said.values())) != 1:
        problems.append("the metrics port disagrees: " + ", ".join(f"{k} {v!r}" for k, v in said.items()))
    if annotations.get("prometheus.io/scrape") != "true" or annotations.get("prometheus.io/path") != "/metrics":
        problems.append(f"the generator pods' annotations {annotations} lack prometheus.io/scrape \"true\" and path /metrics")
    if problems:
        failed("; ".join(problems))
    print(f"{path}: PodMonitor selects the generator pods {selector}, port metrics = {port} = annotation = METRICS_LISTEN")


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "env":
        for key, value in environment(load(arguments[0]), arguments[1]).items():
            print(f"{key}={value}")
    elif command == "agree":
        found = agree(load(arguments[0]))
        if found:
            failed("; ".join(found))
        summary = {name: next(iter(where.values())) for name, where in places(load(arguments[0])).items()}
        print("run settings agree everywhere: " + ", ".join(f"{k}={v}" for k, v in summary.items()))
    elif command == "changed":
        changed(load(arguments[0]), load(arguments[1]), arguments[2], arguments[3])
    elif command == "same":
        first, second = load(arguments[0]), load(arguments[1])
        different = sorted(f"{kind}/{name}" for kind, name in first.keys() | second.keys() if first.get((kind, name)) != second.get((kind, name)))
        if different:
            failed(f"they differ in {different}")
        print(f"the same {len(first)} resources")
    elif command == "podmonitor":
        podmonitor(load(arguments[0]), arguments[1])
    else:
        failed(f"unknown command {command}")
