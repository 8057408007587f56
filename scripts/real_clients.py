#!/usr/bin/env python3
"""Real ArcGIS clients against `featureload serve`, as a new user would call them.

Not part of CI: it needs a ~630 MB virtual environment (arcgis 2.4.4, pandas<3.1, esridump 1.13.0, shapely), GDAL's
ogr2ogr and, for QGIS, Debian's python3-qgis. Run it through scripts/try-real-clients, which builds the environment,
starts the servers and stops them.

Arguments: the site URLs (`…/arcgis`) of one plain-HTTP server and one HTTPS server, both serving the `parks`
dataset with generated rows and a maxRecordCount below the row count (so both clients must page); optionally a
plain-HTTP server of `parkboundaries` (`--boundaries-site`), and a Python that imports qgis (`--qgis-python`).

Per scheme it runs:
  esridump: a paged dump (resultOffset pages), then the statistics/OID fallback (paginate_oid=True);
  ArcGIS API for Python: GIS() through the https portal; FeatureLayerCollection; layer properties; query with
  count, ids, all rows (count, ids, then 200-id objectIds chunks in parallel), objectIds; edit_features
  (multipart) adds/updates/deletes; query_related_records; attachments add/list/download/delete (when the layer
  has attachments); the service-level query with layer_defs_filter.
Over http the portal is the HTTPS server's (the client rewrites a portal URL to https), and every layer request
goes to the HTTP server. arcgis 2.4.4 ignores the portal's `allSSL:false` (it sets `con.all_ssl` but reads
`con._all_ssl`), so the script clears `gis._con._all_ssl`; without that, http layer URLs are rewritten to https.

On parkboundaries' polygon and polyline layers (more rows than every record limit), each client's object IDs are
compared with shapely on the full geometry set, fetched with plain paged queries:
  ArcGIS API for Python: FeatureLayer.query(result_type="tile", quantization_parameters, max_allowable_offset,
  geometry_filter=intersects(...)) with an envelope in 4326 (view mode, upper left) and a triangle in 102100
  (outSR 102100, edit mode, lower left); every quantized geometry decoded with its answer's `transform` and compared
  with the unquantized shape; the FeatureSet's sdf; paging by resultOffset while exceededTransferLimit (with
  orderByFields); intersects and envelopeIntersects on an envelope inside a polygon's hole;
  GDAL (ogr2ogr, ESRIJSON driver): every row of a query URL (the driver pages by resultOffset), `-spat`, and a
  query URL with an envelope filter;
  QGIS (arcgisfeatureserver provider, scripts/real_clients_qgis.py): fields, geometry type, CRS, every feature,
  and setFilterRect rectangles as the map canvas asks (bounding boxes) and with ExactIntersect;
  esridump: full dumps.
Every request arcgis sends is recorded (a requests response hook), and a failed expectation prints the requests
and answers behind it; GDAL's and QGIS' requested URLs are printed the same way.

Prints one line per call with what it returned; exits 1 when any expectation fails.
"""

import argparse
import json
import logging
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse
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


# --- parkboundaries: spatial filters, tiles, quantization and generalization on polygons and lines -------------------

EARTH_RADIUS = 6378137.0  # the spherical Web Mercator (102100/3857) sphere


def to_mercator(x, y):
    return (math.radians(x) * EARTH_RADIUS, math.log(math.tan(math.pi / 4 + math.radians(y) / 2)) * EARTH_RADIUS)


def esri_to_shapely(geometry):
    """An Esri JSON polygon or polyline as shapely; rings are grouped as ArcGIS writes them (outer clockwise, holes
    counter-clockwise, each hole after its outer ring's neighbours)."""
    from shapely.geometry import LinearRing, MultiLineString, MultiPolygon, Polygon

    if "paths" in geometry:
        return MultiLineString([[tuple(vertex[:2]) for vertex in path] for path in geometry["paths"]])
    outers, holes = [], []
    for ring in geometry["rings"]:
        coordinates = [tuple(vertex[:2]) for vertex in ring]
        (holes if LinearRing(coordinates).is_ccw else outers).append(coordinates)
    polygons = []
    for outer in outers:
        shell = Polygon(outer)
        inner = [hole for hole in holes if shell.contains(Polygon(hole).representative_point())]
        polygons.append(Polygon(outer, inner))
    return MultiPolygon(polygons)


def project_shape(shape, function):
    from shapely.ops import transform

    return transform(lambda xs, ys, zs=None: tuple(map(list, zip(*[function(x, y) for x, y in zip(xs, ys)]))), shape)


def dequantize(geometry, transform):
    """Integer cells back to coordinates: each part's first vertex absolute, the others differences from the vertex
    before, as ArcGIS JSON writes quantized geometries (`transform`: originPosition, scale, translate)."""
    (scale_x, scale_y), (translate_x, translate_y) = transform["scale"][:2], transform["translate"][:2]
    upper_left = transform.get("originPosition", "upperLeft") == "upperLeft"
    key = "rings" if "rings" in geometry else "paths"
    parts = []
    for part in geometry[key]:
        i = j = 0
        vertices = []
        for index, vertex in enumerate(part):
            i, j = (vertex[0], vertex[1]) if index == 0 else (i + vertex[0], j + vertex[1])
            vertices.append([translate_x + i * scale_x, translate_y - j * scale_y if upper_left else translate_y + j * scale_y])
        parts.append(vertices)
    return {key: parts}


class Recorder:
    """Every HTTP exchange of a requests.Session (a response hook): what a client sent and what it got back, to
    name the request when an expectation fails."""

    def __init__(self, session):
        self.exchanges = []
        session.hooks["response"].append(self.record)

    def record(self, response, *args, **kwargs):
        request = response.request
        body = request.body.decode(errors="replace") if isinstance(request.body, bytes) else (request.body or "")
        self.exchanges.append({"method": request.method, "url": request.url, "body": body, "status": response.status_code,
                               "answer": response.content.decode(errors="replace")})

    def mark(self):
        return len(self.exchanges)

    def since(self, mark):
        return self.exchanges[mark:]

    def show(self, mark, limit=6):
        for exchange in self.exchanges[mark:][:limit]:
            body = urllib.parse.unquote_plus(exchange["body"])
            print(f"        {exchange['method']} {urllib.parse.unquote_plus(exchange['url'])[:900]}"
                  + (f"\n          body: {body[:900]}" if body else "")
                  + f"\n          -> HTTP {exchange['status']}: {exchange['answer'][:600]}", flush=True)


def fetch_rows(layer_url, out_sr=4326):
    """Every row of a layer with its full geometry, paged by resultOffset with requests (no ArcGIS client): the
    independent ground truth the clients' answers are compared with."""
    rows, offset = {}, 0
    while True:
        answer = requests.get(layer_url + "/query", params={"where": "1=1", "outFields": "OBJECTID", "returnGeometry": "true",
                                                           "outSR": out_sr, "orderByFields": "OBJECTID ASC",
                                                           "resultOffset": offset, "f": "json"}, verify=False, timeout=60).json()
        for feature in answer["features"]:
            rows[feature["attributes"]["OBJECTID"]] = feature["geometry"]
        offset += len(answer["features"])
        if not answer.get("exceededTransferLimit") or not answer["features"]:
            return rows


def shapely_ids(rows, predicate):
    return sorted(oid for oid, geometry in rows.items() if predicate(esri_to_shapely(geometry)))


def compare_ids(label, got, expected, sure=None, recorder=None, mark=None):
    """got must equal expected; with `sure` (the IDs every computation agrees on) got must lie between sure and
    expected (a shape on the filter's edge, where 4326 and 102100 disagree, may go either way)."""
    got = sorted(got)
    if sure is None:
        ok = got == sorted(expected)
    else:
        ok = set(sure) <= set(got) <= set(expected)
    missing = sorted(set(sure if sure is not None else expected) - set(got))
    extra = sorted(set(got) - set(expected))
    edge = "" if sure is None else f", {len(set(expected) - set(sure))} on the edge"
    passed = check(label, ok and (len(got) > 0 or not expected), f"{len(got)} features, shapely {len(expected)}{edge}; missing {missing[:10]}, unexpected {extra[:10]}")
    if not passed and recorder is not None:
        recorder.show(mark)
    return passed


def boundaries_layers(site):
    service_url = f"{site}/rest/services/parkboundaries/FeatureServer"
    service = requests.get(service_url, params={"f": "json"}, verify=False, timeout=30).json()
    layers = {}
    for entry in service["layers"]:
        document = requests.get(f"{service_url}/{entry['id']}", params={"f": "json"}, verify=False, timeout=30).json()
        layers[document["geometryType"]] = (f"{service_url}/{entry['id']}", document)
    return service, layers


def run_boundaries(portal_site, site, qgis_python):
    """arcgis, GDAL, QGIS and esridump against the polygon and polyline layers of `parkboundaries`."""
    label = "parkboundaries"
    print(f"[{label}] service {site}/rest/services/parkboundaries/FeatureServer", flush=True)
    service, layers = boundaries_layers(site)
    check(f"{label} service document", set(layers) == {"esriGeometryPolygon", "esriGeometryPolyline"},
          f"layers {[(entry['id'], entry['name']) for entry in service['layers']]}, geometry types {sorted(layers)}")
    ground = {}
    for geometry_type, (url, document) in sorted(layers.items()):
        rows = fetch_rows(url)
        ground[geometry_type] = rows
        wkid = document["extent"]["spatialReference"].get("latestWkid", document["extent"]["spatialReference"].get("wkid"))
        check(f"{label} {document['name']} ({url.rsplit('/', 1)[-1]}): rows and limits",
              len(rows) == rest_count(url) and len(rows) > document["maxRecordCount"] and wkid == 4326,
              f"{geometry_type}, {len(rows)} rows (paged), maxRecordCount {document['maxRecordCount']}, "
              f"tileMaxRecordCount {document.get('tileMaxRecordCount')}, spatial reference {wkid}, "
              f"supportsCoordinatesQuantization {document.get('supportsCoordinatesQuantization')}")

    run_boundaries_arcgis(portal_site, layers, ground, label)
    run_boundaries_gdal(layers, ground, label)
    run_boundaries_qgis(qgis_python, layers, ground, label)
    run_boundaries_esridump(layers, ground, label)


# Filters: a western half of the extent (more rows than a page), and a triangle in Web Mercator across the middle.
HALF = (-125.0, 24.0, -95.0, 50.0)
TRIANGLE = [(-110.0, 30.0), (-90.0, 45.0), (-80.0, 28.0)]
# Inside the hole of the seed row "Square Park" (-105…-104.9, 40…40.1; hole -104.97…-104.93, 40.03…40.07).
IN_HOLE = (-104.96, 40.04, -104.94, 40.06)


def run_boundaries_arcgis(portal_site, layers, ground, label):
    import arcgis
    from arcgis.features import FeatureLayer
    from arcgis.geometry import Geometry
    from arcgis.geometry.filters import envelope_intersects, intersects
    from arcgis.gis import GIS
    from shapely.geometry import Polygon, box

    print(f"[{label}] arcgis {arcgis.__version__}: query(result_type='tile', quantization_parameters, max_allowable_offset, geometry_filter)", flush=True)
    gis, _ = step(f"{label} GIS()", lambda: GIS(portal_site, verify_cert=False))
    if gis is None:
        return
    gis._con._all_ssl = False  # the layers are on a plain-http server (see the module docstring)
    recorder = Recorder(gis._con._session._session)

    for geometry_type, (url, document) in sorted(layers.items()):
        rows = ground[geometry_type]
        name = f"{label} arcgis {document['name']}"
        layer = FeatureLayer(url, gis)
        extent = document["extent"]

        # 1. An envelope in 4326, more matches than tileMaxRecordCount: view mode from the upper left (which generalizes
        # to the cell size). No max_allowable_offset: arcgis 2.4.4 declares it an int (pydantic refuses 0.0001), so
        # in degrees a client can only ask whole degrees; query 2 generalizes in metres.
        envelope = Geometry({"xmin": HALF[0], "ymin": HALF[1], "xmax": HALF[2], "ymax": HALF[3], "spatialReference": {"wkid": 4326}})
        view = {"mode": "view", "originPosition": "upperLeft", "tolerance": 0.00001,
                "extent": {key: extent[key] for key in ("xmin", "ymin", "xmax", "ymax")} | {"spatialReference": {"wkid": 4326}}}
        expected = shapely_ids(rows, lambda shape: shape.intersects(box(*HALF)))
        run_tile_query(f"{name}: tile, envelope {HALF} intersects, view/upperLeft 1e-5°", layer, recorder,
                       dict(geometry_filter=intersects(envelope, {"wkid": 4326}), quantization_parameters=view),
                       expected, None, rows, None, 0.00001 * 2.5, document)

        # 2. A triangle in 102100 (inSR), answered in 102100: edit mode from the lower left.
        triangle = [list(to_mercator(x, y)) for x, y in TRIANGLE]
        polygon = Geometry({"rings": [triangle + [triangle[0]]], "spatialReference": {"wkid": 102100}})
        lower_left = [to_mercator(extent["xmin"], extent["ymin"]), to_mercator(extent["xmax"], extent["ymax"])]
        edit = {"mode": "edit", "originPosition": "lowerLeft", "tolerance": 1.0,
                "extent": {"xmin": lower_left[0][0], "ymin": lower_left[0][1], "xmax": lower_left[1][0], "ymax": lower_left[1][1],
                           "spatialReference": {"wkid": 102100}}}
        in_mercator = Polygon(triangle)
        in_degrees = Polygon(TRIANGLE)  # the same corners; the edges differ a little between the two projections
        by_mercator = set(shapely_ids(rows, lambda shape: project_shape(shape, to_mercator).intersects(in_mercator)))
        by_degrees = set(shapely_ids(rows, lambda shape: shape.intersects(in_degrees)))
        run_tile_query(f"{name}: tile, triangle in 102100 intersects, outSR 102100, edit/lowerLeft 1 m, maxAllowableOffset 2 m", layer, recorder,
                       dict(geometry_filter=intersects(polygon, {"wkid": 102100}), quantization_parameters=edit, max_allowable_offset=2,
                            out_sr=102100),
                       sorted(by_mercator | by_degrees), sorted(by_mercator & by_degrees), rows, to_mercator, 2 + 1.5, document)

        # 3. Paging that follows exceededTransferLimit: with orderByFields the client pages by resultOffset.
        mark = recorder.mark()
        paged, seconds = step(f"{name}: tile paged by resultOffset", lambda: layer.query(
            result_type="tile", geometry_filter=intersects(envelope, {"wkid": 4326}), quantization_parameters=view,
            order_by_fields="OBJECTID ASC", out_fields="OBJECTID"))
        if paged is not None:
            pages = [exchange for exchange in recorder.since(mark) if "returnCountOnly=true" not in (exchange["url"] + exchange["body"])]
            offsets = [urllib.parse.parse_qs(exchange["body"] or urllib.parse.urlsplit(exchange["url"]).query).get("resultOffset", ["0"])[0]
                       for exchange in pages]
            compare_ids(f"{name}: tile, orderByFields OBJECTID ASC, paged while exceededTransferLimit (resultOffset {', '.join(offsets)})",
                        [feature.attributes["OBJECTID"] for feature in paged.features], expected, recorder=recorder, mark=mark)

        # 4. returnExceededLimitFeatures=false: a tile over its cap answers no features and exceededTransferLimit; the
        # client then sees fewer features than the count and fetches them by 200-id chunks (each within the cap).
        mark = recorder.mark()
        whole, _ = step(f"{name}: tile, return_exceeded_limit_features=False", lambda: layer.query(
            result_type="tile", geometry_filter=intersects(envelope, {"wkid": 4326}), quantization_parameters=view,
            return_exceeded_limit_features=False, out_fields="OBJECTID"))
        if whole is not None:
            first = next((json.loads(exchange["answer"]) for exchange in recorder.since(mark)
                          if "returnExceededLimitFeatures=false" in exchange["body"] + exchange["url"]
                          and "returnCountOnly=true" not in exchange["body"] + exchange["url"]), {})
            check(f"{name}: tile over tileMaxRecordCount with returnExceededLimitFeatures=false answers no features",
                  first.get("features") == [] and first.get("exceededTransferLimit") is True,
                  f"{len(first.get('features', []))} features, exceededTransferLimit {first.get('exceededTransferLimit')}")
            compare_ids(f"{name}: tile, return_exceeded_limit_features=False, then the client's 200-id chunks "
                        f"({', '.join(describe_request(exchange) for exchange in recorder.since(mark))})",
                        [feature.attributes["OBJECTID"] for feature in whole.features], expected, recorder=recorder, mark=mark)

        # 5. A filter inside a polygon's hole meets its envelope, not the polygon.
        if geometry_type == "esriGeometryPolygon":
            hole = Geometry({"xmin": IN_HOLE[0], "ymin": IN_HOLE[1], "xmax": IN_HOLE[2], "ymax": IN_HOLE[3], "spatialReference": {"wkid": 4326}})
            for relation, make, predicate in [("intersects", intersects, lambda shape: shape.intersects(box(*IN_HOLE))),
                                              ("envelopeIntersects", envelope_intersects, lambda shape: box(*shape.bounds).intersects(box(*IN_HOLE)))]:
                mark = recorder.mark()
                answer, _ = step(f"{name}: {relation} inside a hole", lambda: layer.query(result_type="tile", geometry_filter=make(hole, {"wkid": 4326}),
                                                                                         out_fields="OBJECTID,name"))
                if answer is not None:
                    got = sorted(feature.attributes["OBJECTID"] for feature in answer.features)
                    wanted = shapely_ids(rows, predicate)
                    if not check(f"{name}: tile, envelope {IN_HOLE} (inside Square Park's hole) {relation}", got == wanted,
                                 f"{got}, shapely {wanted}"):
                        recorder.show(mark)


def run_tile_query(label, layer, recorder, options, expected, sure, rows, project, tolerance, document):
    """One FeatureLayer.query(result_type='tile', …): IDs against shapely, every quantized geometry decoded with the
    transform of the answer it came in and compared with the unquantized shape, and the FeatureSet's sdf."""
    mark = recorder.mark()
    answer, seconds = step(label, lambda: layer.query(result_type="tile", out_fields="OBJECTID,name", **options))
    if answer is None:
        recorder.show(mark)
        return
    exchanges = recorder.since(mark)
    flow = ", ".join(describe_request(exchange) for exchange in exchanges)
    print(f"  note  {len(exchanges)} requests: {flow}; {seconds:.1f} s", flush=True)
    got = [feature.attributes["OBJECTID"] for feature in answer.features]
    compare_ids(f"{label}: IDs", got, expected, sure, recorder, mark)
    check(f"{label}: no feature twice", len(got) == len(set(got)), f"{len(got)} features, {len(set(got))} distinct")

    # Decode each page's integers with that page's transform.
    worst, undecoded, transforms = 0.0, [], set()
    for exchange in exchanges:
        try:
            page = json.loads(exchange["answer"])
        except ValueError:
            continue
        if "features" not in page:
            continue
        transform = page.get("transform")
        if transform is None:
            undecoded.append(describe_request(exchange))
            continue
        transforms.add(json.dumps(transform, sort_keys=True))
        for feature in page["features"]:
            geometry = feature["geometry"]
            key = "rings" if "rings" in geometry else "paths"
            if not all(isinstance(value, int) for part in geometry[key] for vertex in part for value in vertex[:2]):
                undecoded.append(f"OBJECTID {feature['attributes']['OBJECTID']} has non-integer coordinates")
                continue
            decoded = esri_to_shapely(dequantize(geometry, transform))
            original = esri_to_shapely(rows[feature["attributes"]["OBJECTID"]])
            if project is not None:
                original = project_shape(original, project)
            worst = max(worst, decoded.hausdorff_distance(original))
    check(f"{label}: quantized answer decodes via its transform", not undecoded and len(transforms) == 1 and worst <= tolerance,
          f"transform {next(iter(transforms), None)}, largest distance from the unquantized shape {worst:.3g} (allowed {tolerance:.3g})"
          + (f"; not decodable: {undecoded[:3]}" if undecoded else ""))

    frame, _ = step(f"{label}: FeatureSet.sdf", lambda: answer.sdf)
    if frame is not None:
        check(f"{label}: FeatureSet / sdf", len(frame) == len(got) and answer.geometry_type == document["geometryType"]
              and "SHAPE" in frame.columns and frame.spatial.geometry_type is not None,
              f"geometry_type {answer.geometry_type}, sdf {len(frame)} rows, columns {list(frame.columns)}, "
              f"spatial types {sorted(set(map(str, frame.spatial.geometry_type)))}")


def describe_request(exchange):
    parameters = urllib.parse.parse_qs(exchange["body"] or urllib.parse.urlsplit(exchange["url"]).query)
    keys = [key for key in ("returnCountOnly", "returnIdsOnly", "resultOffset", "resultType") if parameters.get(key, ["false"])[0] not in ("false", "False")]
    if "objectIds" in parameters:
        keys.append(f"objectIds×{len(parameters['objectIds'][0].split(','))}")
    answer = exchange["answer"]
    try:
        page = json.loads(answer)
        summary = (f"count {page['count']}" if "count" in page else f"{len(page['objectIds'])} ids" if "objectIds" in page
                   else f"{len(page.get('features', []))} features{' +more' if page.get('exceededTransferLimit') else ''}" if "features" in page
                   else answer[:200])
    except ValueError:
        summary = answer[:200]
    return f"{exchange['method']} {'&'.join(keys) or 'query'} → {summary}"


def run_ogr(arguments):
    """ogr2ogr to GeoJSON on standard output, GDAL's HTTP debug lines kept."""
    completed = subprocess.run(["ogr2ogr", "-f", "GeoJSON", "/vsistdout/", *arguments], capture_output=True, text=True, timeout=300,
                               env=os.environ | {"CPL_DEBUG": "ON", "GDAL_HTTP_TIMEOUT": "60"})
    if completed.returncode != 0:
        raise RuntimeError(f"ogr2ogr exit {completed.returncode}: {completed.stderr[-1500:]}")
    fetched = [line.split("Fetch(", 1)[1].rstrip(")") for line in completed.stderr.splitlines() if "Fetch(" in line]
    return json.loads(completed.stdout), fetched, completed.stderr


def run_boundaries_gdal(layers, ground, label):
    from shapely.geometry import box

    version = subprocess.run(["ogr2ogr", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"[{label}] GDAL ESRIJSON driver ({version})", flush=True)
    for geometry_type, (url, document) in sorted(layers.items()):
        rows = ground[geometry_type]
        name = f"{label} GDAL {document['name']}"
        query = f"{url}/query?where=1%3D1&outFields=*&orderByFields=OBJECTID+ASC&f=json"
        # Everything, paged by the driver (resultOffset) past maxRecordCount.
        answer, _ = step(f"{name}: all rows", lambda: run_ogr([f"ESRIJSON:{query}"]))
        if answer is not None:
            collection, fetched, _ = answer
            got = [feature["properties"]["OBJECTID"] for feature in collection["features"]]
            if not check(f"{name}: ogr2ogr ESRIJSON:{url.rsplit('/rest/', 1)[-1]}/query?where=1=1&orderByFields=OBJECTID ASC, every row once",
                         sorted(got) == sorted(rows), f"{len(got)} features ({len(set(got))} distinct) of {len(rows)} in {len(fetched)} requests "
                         f"(maxRecordCount {document['maxRecordCount']}): " + "; ".join(fetched)[:600]):
                print("        " + "\n        ".join(fetched), flush=True)
        # -spat: GDAL filters what it reads; the same box as a server-side envelope filter; both against shapely.
        expected = shapely_ids(rows, lambda shape: shape.intersects(box(*HALF)))
        spat = [str(value) for value in HALF]
        server_filter = (f"{url}/query?where=1%3D1&outFields=*&orderByFields=OBJECTID+ASC&geometry={','.join(spat)}"
                         f"&geometryType=esriGeometryEnvelope&inSR=4326&spatialRel=esriSpatialRelIntersects&f=json")
        for title, arguments in [(f"-spat {' '.join(spat)}", [f"ESRIJSON:{query}", "-spat", *spat]),
                                 (f"query URL with geometry={','.join(spat)} (envelope, intersects)", [f"ESRIJSON:{server_filter}"]),
                                 ("both", [f"ESRIJSON:{server_filter}", "-spat", *spat])]:
            answer, seconds = step(f"{name}: {title}", lambda: run_ogr(arguments))
            if answer is None:
                continue
            collection, fetched, _ = answer
            got = [feature["properties"]["OBJECTID"] for feature in collection["features"]]
            compare_ids(f"{name}: {title} ({len(fetched)} requests, {seconds:.1f} s)", got, expected)
            print("  note  GDAL requested " + " | ".join(urllib.parse.unquote_plus(url.split("/FeatureServer/", 1)[1]) for url in fetched), flush=True)
            check(f"{name}: {title}: geometry type", {feature["geometry"]["type"] for feature in collection["features"]}
                  <= ({"Polygon", "MultiPolygon"} if geometry_type == "esriGeometryPolygon" else {"LineString", "MultiLineString"}),
                  f"{sorted({feature['geometry']['type'] for feature in collection['features']})}")


def run_boundaries_qgis(qgis_python, layers, ground, label):
    from shapely.geometry import box

    if qgis_python is None:
        print(f"[{label}] QGIS: skipped (no Python with the qgis module; see scripts/try-real-clients)", flush=True)
        return
    rectangles = [HALF, (-106.0, 39.5, -104.5, 40.5), IN_HOLE]
    command = [qgis_python, os.path.join(os.path.dirname(os.path.abspath(__file__)), "real_clients_qgis.py")]
    for _, (url, _) in sorted(layers.items()):
        command += ["--layer", url]
    for rectangle in rectangles:
        command.append("--rect=" + ",".join(map(str, rectangle)))  # "=": the value starts with a minus sign
    completed, seconds = step(f"{label} QGIS run", lambda: subprocess.run(command, capture_output=True, text=True, timeout=600,
                                                                          env=os.environ | {"QT_QPA_PLATFORM": "offscreen"}))
    if completed is None:
        return
    if not check(f"{label} QGIS script", completed.returncode == 0, f"exit {completed.returncode}, {seconds:.1f} s"
                 + ("" if completed.returncode == 0 else f": {completed.stderr[-1500:]}")):
        return
    report = json.loads(completed.stdout)
    print(f"[{label}] QGIS {report['qgis']} arcgisfeatureserver provider", flush=True)
    by_url = {entry["url"]: entry for entry in report["layers"]}
    for geometry_type, (url, document) in sorted(layers.items()):
        rows, entry = ground[geometry_type], by_url[url]
        name = f"{label} QGIS {document['name']}"
        if not check(f"{name}: layer valid", entry["valid"], entry.get("error", "")):
            print("        " + "\n        ".join(entry["requests"]), flush=True)
            continue
        # QGIS maps esriGeometryPolyline to MultiCurve (its provider reads true curves too), polygons to MultiPolygon.
        wanted_type = "MultiPolygon" if geometry_type == "esriGeometryPolygon" else "MultiCurve"
        field_names = [field[0] for field in entry["fields"]]
        check(f"{name}: fields, geometry type, CRS", field_names == [field["name"] for field in document["fields"]]
              and entry["geometryType"] == wanted_type and entry["crs"] == "EPSG:4326" and entry["featureCount"] == len(rows),
              f"fields {entry['fields']}, {entry['geometryType']}, {entry['crs']}, featureCount {entry['featureCount']}")
        check(f"{name}: every feature", entry["all"] == sorted(rows), f"{len(entry['all'])} of {len(rows)}")
        for result in entry["rects"]:
            rectangle = box(*result["rect"])
            for kind, title, predicate in [("bbox", "as the canvas draws (bounding boxes)", lambda shape: box(*shape.bounds).intersects(rectangle)),
                                           ("exact", "with ExactIntersect", lambda shape: shape.intersects(rectangle))]:
                requests_sent = result[kind + "Requests"]
                spatial = [urllib.parse.unquote(request.split("/FeatureServer/", 1)[1]) for request in requests_sent if "geometry=" in request]
                passed = compare_ids(f"{name}: setFilterRect({result['rect']}) {title}", result[kind], shapely_ids(rows, predicate))
                passed = check(f"{name}: setFilterRect({result['rect']}) {title}: asked the server", bool(spatial),
                               f"{len(requests_sent)} requests: {spatial[0][:300] if spatial else ''}") and passed
                if not passed:
                    print("        " + "\n        ".join(urllib.parse.unquote(request) for request in requests_sent), flush=True)


def run_boundaries_esridump(layers, ground, label):
    from esridump.dumper import EsriDumper

    print(f"[{label}] esridump 1.13.0", flush=True)
    for geometry_type, (url, document) in sorted(layers.items()):
        rows = ground[geometry_type]
        name = f"{label} esridump {document['name']}"
        dumped, seconds = step(name, lambda: list(EsriDumper(url, max_page_size=100, pause_seconds=0)))
        if dumped is None:
            continue
        oids = sorted(row["properties"]["OBJECTID"] for row in dumped)
        check(f"{name}: every row once", oids == sorted(rows), f"{len(dumped)} GeoJSON features, {len(set(oids))} distinct, {len(rows)} rows, {seconds:.1f} s")
        wanted = {"Polygon", "MultiPolygon"} if geometry_type == "esriGeometryPolygon" else {"LineString", "MultiLineString"}
        types = {row["geometry"]["type"] for row in dumped if row.get("geometry")}
        check(f"{name}: geometries", types <= wanted and sum(1 for row in dumped if row.get("geometry")) == len(rows), f"{sorted(types)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--http-site", required=True, help="http://127.0.0.1:PORT/arcgis of the plain-HTTP server")
    parser.add_argument("--https-site", required=True, help="https://127.0.0.1:PORT/arcgis of the HTTPS server")
    parser.add_argument("--boundaries-site", help="http://127.0.0.1:PORT/arcgis of a plain-HTTP server of parkboundaries")
    parser.add_argument("--qgis-python", help="a Python that imports qgis (Debian's /usr/bin/python3 with python3-qgis)")
    parser.add_argument("--only", choices=["parks", "boundaries"], help="run one part")
    arguments = parser.parse_args()
    started = time.monotonic()
    if arguments.only != "boundaries":
        for site, label in [(arguments.http_site, "http"), (arguments.https_site, "https")]:
            run_esridump(site, label)
            run_arcgis(arguments.https_site, site, label)
    if arguments.boundaries_site and arguments.only != "parks":
        run_boundaries(arguments.https_site, arguments.boundaries_site, arguments.qgis_python)
    print(f"\n{time.monotonic() - started:.1f} s")
    if FAILURES:
        print(f"\n{len(FAILURES)} failed: " + "; ".join(FAILURES))
        sys.exit(1)
    print("\nall expectations met")


if __name__ == "__main__":
    main()
