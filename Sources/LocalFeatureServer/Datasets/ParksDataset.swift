import FeatureModel

/// The built-in `parks` service: layer 0 "National Parks" (points) and table 1 "Species", related one-to-many
/// through a composite relationship (deleting a park deletes its species).
///
/// ```
/// National Parks (0)  GlobalID ──1:M, composite──▶ park_guid  Species (1)
/// ```
enum ParksDataset {
    static let definition = ServiceDefinition(
        name: "parks",
        serviceDescription: "US national parks and the species observed in them (featureload built-in dataset).",
        layers: [LayerDefinition(info: parksLayer, seedRows: parkRows), LayerDefinition(info: speciesTable, seedRows: speciesRows)]
    )

    static let parkCategory = Domain.codedValue(
        name: "ParkCategory",
        codedValues: [
            CodedValue(name: "National Park", code: 1), CodedValue(name: "National Monument", code: 2),
            CodedValue(name: "National Preserve", code: 3),
        ]
    )

    static let conservationStatus = Domain.codedValue(
        name: "ConservationStatus",
        codedValues: [
            CodedValue(name: "Least Concern", code: "LC"), CodedValue(name: "Near Threatened", code: "NT"),
            CodedValue(name: "Vulnerable", code: "VU"), CodedValue(name: "Endangered", code: "EN"),
            CodedValue(name: "Critically Endangered", code: "CR"),
        ]
    )

    private static func identityFields() -> [Field] {
        [
            Field(name: "OBJECTID", type: .oid, alias: "OBJECTID", length: 4, nullable: false, editable: false),
            Field(name: "GlobalID", type: .globalID, alias: "GlobalID", length: 38, nullable: false, editable: false),
        ]
    }

    static let parksLayer: LayerInfo = {
        var info = LayerInfo(
            id: 0,
            name: "National Parks",
            type: "Feature Layer",
            geometryType: .point,
            objectIdField: "OBJECTID",
            globalIdField: "GlobalID",
            fields: identityFields() + [
                Field(name: "name", type: .string, alias: "Name", length: 128, nullable: false),
                Field(name: "state", type: .string, alias: "State", length: 2),
                Field(name: "category", type: .smallInteger, alias: "Category", domain: parkCategory),
                Field(name: "area_km2", type: .double, alias: "Area (km²)", domain: .range(name: "AreaKm2", minValue: 0, maxValue: 100_000)),
                Field(name: "established", type: .date, alias: "Established", length: 8),
                Field(name: "visitors", type: .integer, alias: "Annual visitors"),
            ],
            relationships: [
                RelationshipInfo(
                    id: 0,
                    name: "Park_Species",
                    relatedTableId: 1,
                    cardinality: .oneToMany,
                    role: .origin,
                    keyField: "GlobalID",
                    composite: true
                )
            ],
            hasAttachments: true
        )
        info.description = "National parks, monuments and preserves."
        info.displayField = "name"
        info.extent = Extent(xmin: -151.2, ymin: 25.2, xmax: -68.2, ymax: 63.2, spatialReference: .wgs84)
        return info
    }()

    static let speciesTable: LayerInfo = {
        var info = LayerInfo(
            id: 1,
            name: "Species",
            type: "Table",
            geometryType: nil,
            objectIdField: "OBJECTID",
            globalIdField: "GlobalID",
            fields: identityFields() + [
                Field(name: "park_guid", type: .guid, alias: "Park", length: 38),
                Field(name: "common_name", type: .string, alias: "Common name", length: 128, nullable: false),
                Field(name: "scientific_name", type: .string, alias: "Scientific name", length: 128),
                Field(name: "status", type: .string, alias: "Conservation status", length: 2, domain: conservationStatus),
                Field(name: "observed", type: .integer, alias: "Observed", domain: .range(name: "ObservedCount", minValue: 0, maxValue: 1_000_000)),
            ],
            relationships: [
                RelationshipInfo(
                    id: 0,
                    name: "Park_Species",
                    relatedTableId: 0,
                    cardinality: .oneToMany,
                    role: .destination,
                    keyField: "park_guid",
                    composite: true
                )
            ],
            hasAttachments: false
        )
        info.description = "Species observed in each park."
        info.displayField = "common_name"
        return info
    }()

    /// (name, state, category, km², established y/m/d, visitors, longitude, latitude)
    private static let parks: [(String, String, Int64, Double, (Int, Int, Int), Int64, Double, Double)] = [
        ("Yellowstone", "WY", 1, 8983.2, (1872, 3, 1), 4_501_382, -110.5885, 44.4280),
        ("Yosemite", "CA", 1, 3082.7, (1890, 10, 1), 3_897_070, -119.5383, 37.8651),
        ("Grand Canyon", "AZ", 1, 4926.1, (1919, 2, 26), 4_733_705, -112.1129, 36.1069),
        ("Zion", "UT", 1, 595.9, (1919, 11, 19), 4_623_238, -113.0263, 37.2982),
        ("Great Smoky Mountains", "TN", 1, 2114.2, (1934, 6, 15), 13_297_647, -83.5070, 35.6118),
        ("Acadia", "ME", 1, 198.6, (1919, 2, 26), 3_879_890, -68.2733, 44.3386),
        ("Rocky Mountain", "CO", 1, 1075.6, (1915, 1, 26), 4_115_236, -105.6836, 40.3428),
        ("Denali", "AK", 1, 24_585.0, (1917, 2, 26), 498_722, -151.1926, 63.1148),
        ("Everglades", "FL", 1, 6106.5, (1947, 12, 6), 942_130, -80.8987, 25.2866),
        ("Devils Tower", "WY", 2, 5.45, (1906, 9, 24), 499_031, -104.7146, 44.5902),
        ("Muir Woods", "CA", 2, 2.2, (1908, 1, 9), 862_471, -122.5811, 37.8970),
        ("Big Cypress", "FL", 3, 2916.0, (1974, 10, 11), 1_071_347, -81.0818, 25.8575),
    ]

    /// Deterministic GlobalIDs for the parks, so species rows can point at them.
    static let parkGlobalIDs: [String] = {
        var generator = SplitMix64(seed: 0x5EED_0001)
        return parks.map { _ in GlobalID.make(using: &generator) }
    }()

    static let parkRows: [Feature] = parks.enumerated().map { index, park in
        let (name, state, category, area, date, visitors, x, y) = park
        return Feature(
            attributes: [
                "GlobalID": .string(parkGlobalIDs[index]), "name": .string(name), "state": .string(state), "category": .int(category),
                "area_km2": .double(area), "established": .int(epochMilliseconds(year: date.0, month: date.1, day: date.2)),
                "visitors": .int(visitors),
            ],
            geometry: .point(x: x, y: y)
        )
    }

    /// (park index, common name, scientific name, status, observed)
    private static let species: [(Int, String, String, String, Int64)] = [
        (0, "Gray Wolf", "Canis lupus", "LC", 108), (0, "American Bison", "Bison bison", "NT", 4_800),
        (0, "Grizzly Bear", "Ursus arctos horribilis", "LC", 150), (0, "Elk", "Cervus canadensis", "LC", 20_000),
        (1, "Sierra Nevada Bighorn Sheep", "Ovis canadensis sierrae", "EN", 600), (1, "Great Gray Owl", "Strix nebulosa", "LC", 120),
        (1, "Yosemite Toad", "Anaxyrus canorus", "EN", 2_000), (2, "California Condor", "Gymnogyps californianus", "CR", 90),
        (2, "Humpback Chub", "Gila cypha", "VU", 12_000), (2, "Desert Bighorn Sheep", "Ovis canadensis nelsoni", "LC", 500),
        (3, "Mexican Spotted Owl", "Strix occidentalis lucida", "NT", 40), (3, "Zion Snail", "Physella zionis", "VU", 5_000),
        (4, "Black Bear", "Ursus americanus", "LC", 1_900), (4, "Eastern Hellbender", "Cryptobranchus alleganiensis", "VU", 300),
        (4, "Synchronous Firefly", "Photinus carolinus", "LC", 100_000), (5, "Peregrine Falcon", "Falco peregrinus", "LC", 12),
        (5, "Atlantic Puffin", "Fratercula arctica", "VU", 80), (6, "Canada Lynx", "Lynx canadensis", "LC", 20),
        (6, "Boreal Toad", "Anaxyrus boreas boreas", "NT", 350), (6, "White-tailed Ptarmigan", "Lagopus leucura", "LC", 900),
        (7, "Dall Sheep", "Ovis dalli", "LC", 2_500), (7, "Caribou", "Rangifer tarandus", "VU", 2_200),
        (7, "Moose", "Alces alces", "LC", 1_800), (8, "Florida Panther", "Puma concolor coryi", "EN", 230),
        (8, "American Crocodile", "Crocodylus acutus", "VU", 2_000), (8, "West Indian Manatee", "Trichechus manatus", "VU", 700),
        (9, "Black-tailed Prairie Dog", "Cynomys ludovicianus", "LC", 5_000), (10, "Northern Spotted Owl", "Strix occidentalis caurina", "NT", 16),
        (10, "Coho Salmon", "Oncorhynchus kisutch", "EN", 300), (11, "Red-cockaded Woodpecker", "Dryobates borealis", "NT", 140),
    ]

    static let speciesRows: [Feature] = {
        var generator = SplitMix64(seed: 0x5EED_0002)
        return species.map { park, common, scientific, status, observed in
            Feature(attributes: [
                "GlobalID": .string(GlobalID.make(using: &generator)), "park_guid": .string(parkGlobalIDs[park]),
                "common_name": .string(common), "scientific_name": .string(scientific), "status": .string(status), "observed": .int(observed),
            ])
        }
    }()
}
