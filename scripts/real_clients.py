#!/usr/bin/env python3
"""Real ArcGIS clients from PyPI against `featureload serve`, as a new user would call them.

Not part of CI: it needs a ~630 MB virtual environment (arcgis 2.4.4, pandas<3.1, esridump 1.13.0). Run it
through scripts/try-real-clients, which builds the environment, starts the servers and stops them.

Arguments: the site URLs (`…/arcgis`) of one plain-HTTP server and one HTTPS server, both serving the `parks`
dataset with generated rows and a maxRecordCount below the row count (so both clients must page).

Per scheme it runs:
  esridump: a paged dump (resultOffset pages), then the statistics/OID fallback (paginate_oid=True);
  ArcGIS API for Python: GIS() through the https portal; FeatureLayerCollection; layer properties; query with
  count, ids, all rows (count, ids, then 200-id objectIds chunks in parallel), objectIds; edit_features
  (multipart) adds/updates/deletes; query_related_records; attachments add/list/download/delete (when the layer
  has attachments); the service-level query with layer_defs_filter.
Over http the portal is the HTTPS server's (the client rewrites a portal URL to https), and every layer request
goes to the HTTP server. arcgis 2.4.4 ignores the portal's `allSSL:false` (it sets `con.all_ssl` but reads
`con._all_ssl`), so the script clears `gis._con._all_ssl`; without that, http layer URLs are rewritten to https.

Prints one line per call with what it returned; exits 1 when any expectation fails.
"""

import argparse
import json
import logging
import os
import sys
import tempfile
import time
import traceback
import warnings

import requests
import urllib3

urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
warnings.filterwarnings("ignore")
logging.basicConfig(level=logging.ERROR)

FAILURES = []


def check(label, condition, detail=""):
    """Records one expectation; prints ok/FAIL with the detail."""
    print(("  ok    " if condition else "  FAIL  ") + label + (f": {detail}" if detail != "" else ""), flush=True)
    if not condition:
        FAILURES.append(label)
    return condition


def step(label, function):
    """Runs one client call; an exception is a failed expectation, not the end of the run."""
    started = time.monotonic()
    try:
        value = function()
        return value, time.monotonic() - started
    except Exception as error:  # noqa: BLE001 - every client failure is reported
        check(label, False, f"{type(error).__name__}: {str(error)[:300]}")
        traceback.print_exc(limit=2, file=sys.stdout)
        return None, time.monotonic() - started


def rest_count(layer_url, where="1=1"):
    """The count straight from the REST endpoint (requests, no ArcGIS client)."""
    answer = requests.get(layer_url + "/query", params={"where": where, "returnCountOnly": "true", "f": "json"}, verify=False, timeout=30)
    return answer.json()["count"]


def run_esridump(site, label):
    from esridump.dumper import EsriDumper

    print(f"[{label}] esridump 1.13.0", flush=True)
    url = f"{site}/rest/services/parks/FeatureServer/0"
    expected = rest_count(url)
    for name, options in [("pages (resultOffset)", {}), ("statistics/OID fallback (paginate_oid)", {"paginate_oid": True})]:
        rows, seconds = step(f"{label} esridump {name}", lambda: list(EsriDumper(url, max_page_size=100, pause_seconds=0, **options)))
        if rows is None:
            continue
        oids = [row["properties"]["OBJECTID"] for row in rows]
        check(f"{label} esridump {name}: every row once", len(rows) == expected and len(set(oids)) == expected,
              f"{len(rows)} GeoJSON features, {len(set(oids))} distinct OBJECTIDs, server count {expected}, {seconds:.1f} s")
        with_geometry = sum(1 for row in rows if row.get("geometry") and row["geometry"].get("type") == "Point")
        check(f"{label} esridump {name}: point geometries", with_geometry == expected, f"{with_geometry} points")


def run_arcgis(portal_site, layer_site, label):
    from arcgis.features import FeatureLayerCollection
    from arcgis.gis import GIS

    print(f"[{label}] arcgis 2.4.4 (portal {portal_site}, layers {layer_site})", flush=True)
    gis, _ = step(f"{label} GIS()", lambda: GIS(portal_site, verify_cert=False))
    if gis is None:
        return
    check(f"{label} GIS() connects", True, f"version {gis.version}, portalName {gis.properties['portalName']!r}, "
          f"portalMode {gis.properties['portalMode']!r}, is AGOL {gis._is_arcgisonline}")
    if layer_site.startswith("http://"):
        # arcgis 2.4.4 copies the portal's allSSL into `con.all_ssl` but reads `con._all_ssl` (default True), so every
        # URL, http layer URLs included, is rewritten to https. Clearing that one attribute is the only way to reach a
        # plain-http service through a GIS; every request is still built by the library.
        print(f"  note  portal allSSL {gis.properties['allSSL']}, con.all_ssl {getattr(gis._con, 'all_ssl', None)}, "
              f"con._all_ssl {gis._con._all_ssl}: clearing con._all_ssl", flush=True)
        gis._con._all_ssl = False

    service_url = f"{layer_site}/rest/services/parks/FeatureServer"
    flc, _ = step(f"{label} FeatureLayerCollection", lambda: FeatureLayerCollection(service_url, gis))
    if flc is None:
        return
    check(f"{label} FeatureLayerCollection", len(flc.layers) == 1 and len(flc.tables) == 1,
          f"layers {[layer.properties.name for layer in flc.layers]}, tables {[table.properties.name for table in flc.tables]}")
    layer, table = flc.layers[0], flc.tables[0]
    check(f"{label} layer URL scheme", layer.url.startswith(layer_site), layer.url)

    properties = layer.properties
    check(f"{label} layer.properties", properties.objectIdField == "OBJECTID" and properties.geometryType == "esriGeometryPoint",
          f"name {properties.name!r}, objectIdField {properties.objectIdField}, maxRecordCount {properties.maxRecordCount}, "
          f"hasAttachments {properties.hasAttachments}, relationships {len(properties.relationships)}")

    expected = rest_count(layer.url)
    count, _ = step(f"{label} query(return_count_only)", lambda: layer.query(where="1=1", return_count_only=True))
    check(f"{label} query(return_count_only=True)", count == expected, f"{count}")
    ids_answer, _ = step(f"{label} query(return_ids_only)", lambda: layer.query(where="1=1", return_ids_only=True))
    ids = sorted(ids_answer["objectIds"]) if ids_answer else []
    check(f"{label} query(return_ids_only=True)", len(ids) == expected, f"{len(ids)} ids (uncapped), first {ids[:3]}")

    everything, seconds = step(f"{label} query(all)", lambda: layer.query(where="1=1", out_fields="*"))
    if everything is not None:
        oids = [feature.attributes["OBJECTID"] for feature in everything.features]
        check(f"{label} query(where='1=1', out_fields='*')", len(oids) == expected and sorted(oids) == ids,
              f"{len(oids)} features through count + ids + 200-id objectIds chunks "
              f"(maxRecordCount {properties.maxRecordCount}), {seconds:.1f} s")

    chosen = ids[:5]
    some, _ = step(f"{label} query(object_ids)", lambda: layer.query(object_ids=",".join(map(str, chosen)), out_fields="OBJECTID,name"))
    if some is not None:
        got = sorted(feature.attributes["OBJECTID"] for feature in some.features)
        check(f"{label} query(object_ids='{','.join(map(str, chosen))}')", got == chosen, f"{got}")

    frame, _ = step(f"{label} query(as_df)", lambda: layer.query(where="state = 'UT'", out_fields="name,state", as_df=True))
    if frame is not None:
        check(f"{label} query(as_df=True)", len(frame) == rest_count(layer.url, "state = 'UT'"), f"{len(frame)} rows, columns {list(frame.columns)}")

    table_count, _ = step(f"{label} table count", lambda: table.query(where="1=1", return_count_only=True))
    check(f"{label} Table.query(return_count_only=True)", table_count == rest_count(table.url), f"{table_count}")

    # Edits: multipart applyEdits.
    adds = [{"attributes": {"name": f"Real client park {label}", "state": "CA", "category": 1, "visitors": 7},
             "geometry": {"x": -120.5, "y": 37.25, "spatialReference": {"wkid": 4326}}}]
    added, _ = step(f"{label} edit_features(adds)", lambda: layer.edit_features(adds=adds))
    new_oid = None
    if added is not None:
        result = added["addResults"][0]
        new_oid = result.get("objectId")
        check(f"{label} edit_features(adds)", result.get("success") is True and rest_count(layer.url) == expected + 1, json.dumps(result))
    if new_oid is not None:
        updated, _ = step(f"{label} edit_features(updates)",
                          lambda: layer.edit_features(updates=[{"attributes": {"OBJECTID": new_oid, "visitors": 8}}]))
        if updated is not None:
            row = layer.query(where=f"OBJECTID = {new_oid}", out_fields="visitors").features[0].attributes
            check(f"{label} edit_features(updates)", updated["updateResults"][0].get("success") is True and row["visitors"] == 8,
                  f"{json.dumps(updated['updateResults'][0])}, visitors now {row['visitors']}")

    # Related records: the park with the most species.
    first = ids[0] if ids else 1
    related, _ = step(f"{label} query_related_records", lambda: layer.query_related_records(object_ids=str(first), relationship_id="0"))
    if related is not None:
        groups = related.get("relatedRecordGroups", [])
        records = sum(len(group["relatedRecords"]) for group in groups)
        guid = layer.query(where=f"OBJECTID = {first}", out_fields="GlobalID").features[0].attributes["GlobalID"]
        expected_related = rest_count(table.url, f"park_guid = '{guid}'")
        check(f"{label} query_related_records(object_ids='{first}', relationship_id='0')", records == expected_related,
              f"{len(groups)} group(s), {records} species, table count for park_guid {expected_related}")

    if properties.hasAttachments and new_oid is not None:
        run_attachments(layer, new_oid, label)

    # Service-level query with layerDefs.
    answer, _ = step(f"{label} FeatureLayerCollection.query(layer_defs_filter)",
                     lambda: flc.query(layer_defs_filter={"0": "state = 'CA'", "1": "status = 'EN'"}, return_geometry=False))
    if answer is not None:
        layers = {entry["id"]: entry for entry in answer.get("layers", [])}
        counts = {key: len(value.get("features", [])) for key, value in layers.items()}
        expected_counts = {0: rest_count(layer.url, "state = 'CA'"), 1: rest_count(table.url, "status = 'EN'")}
        check(f"{label} FeatureLayerCollection.query(layer_defs_filter={{'0': \"state = 'CA'\", '1': \"status = 'EN'\"}})",
              counts == expected_counts and all(expected_counts.values()),
              f"features per layer {counts}, layer counts {expected_counts}")

    if new_oid is not None:
        deleted, _ = step(f"{label} edit_features(deletes)", lambda: layer.edit_features(deletes=str(new_oid)))
        if deleted is not None:
            check(f"{label} edit_features(deletes='{new_oid}')",
                  deleted["deleteResults"][0].get("success") is True and rest_count(layer.url) == expected,
                  f"{json.dumps(deleted['deleteResults'][0])}, count back to {rest_count(layer.url)}")


def run_attachments(layer, oid, label):
    payload = os.urandom(50_000) + b"featureload attachment"
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "field-photo.png")
        with open(path, "wb") as file:
            file.write(payload)
        added, _ = step(f"{label} attachments.add", lambda: layer.attachments.add(oid, path))
        if added is None:
            return
        result = added.get("addAttachmentResult", added)
        attachment_id = result.get("objectId")
        check(f"{label} attachments.add({oid}, field-photo.png)", result.get("success") is True, json.dumps(result))
        listing, _ = step(f"{label} attachments.get_list", lambda: layer.attachments.get_list(oid))
        if listing is not None:
            check(f"{label} attachments.get_list({oid})", any(item["id"] == attachment_id and item["size"] == len(payload) for item in listing),
                  json.dumps([{key: item.get(key) for key in ("id", "name", "size", "contentType")} for item in listing]))
        target = os.path.join(directory, "download")
        os.makedirs(target)
        saved, _ = step(f"{label} attachments.download", lambda: layer.attachments.download(oid, attachment_id, save_path=target))
        if saved is not None:
            saved_path = saved[0] if isinstance(saved, list) else saved
            with open(saved_path, "rb") as file:
                data = file.read()
            check(f"{label} attachments.download({oid}, {attachment_id})", data == payload, f"{len(data)} bytes, identical {data == payload}")
        counted, _ = step(f"{label} attachments.count", lambda: layer.attachments.count(where=f"OBJECTID = {oid}"))
        if counted is not None:
            check(f"{label} attachments.count(where='OBJECTID = {oid}')", counted == 1, f"{counted}")
        removed, _ = step(f"{label} attachments.delete", lambda: layer.attachments.delete(oid, attachment_id))
        if removed is not None:
            results = removed.get("deleteAttachmentResults", [])
            after = layer.attachments.get_list(oid)
            check(f"{label} attachments.delete({oid}, {attachment_id})", bool(results) and results[0].get("success") is True and after == [],
                  f"{json.dumps(results)}, listing after: {after}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--http-site", required=True, help="http://127.0.0.1:PORT/arcgis of the plain-HTTP server")
    parser.add_argument("--https-site", required=True, help="https://127.0.0.1:PORT/arcgis of the HTTPS server")
    arguments = parser.parse_args()
    for site, label in [(arguments.http_site, "http"), (arguments.https_site, "https")]:
        run_esridump(site, label)
        run_arcgis(arguments.https_site, site, label)
    if FAILURES:
        print(f"\n{len(FAILURES)} failed: " + "; ".join(FAILURES))
        sys.exit(1)
    print("\nall expectations met")


if __name__ == "__main__":
    main()
