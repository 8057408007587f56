import FeatureModel

/// What a journal records about its run, so `apply --resume JOURNAL` continues it with nothing else given: the
/// input, the target, the layer's keys and the settings. Never a secret: authentication is named by the environment
/// variables that hold it, which the resuming command reads again.
package struct JournalHeader: Sendable, Hashable, Codable {
    /// The input file, as an absolute path.
    package var input: String
    /// The input's size in bytes when it was planned, to notice a changed file on resume.
    package var inputSize: Int64
    /// The `…/FeatureServer` URL, or `local`.
    package var target: String
    /// For `local`: the SQLite file the embedded service used.
    package var localData: String?
    /// For `local`: the dataset the embedded service served.
    package var localDataset: String?
    /// The layer the edits go to (records may name others, in service-level Esri JSON).
    package var layer: Int
    /// The layer's object-ID field.
    package var objectIdField: String
    /// The layer's GlobalID field, where adds carry their client-assigned GlobalIDs.
    package var globalIdField: String
    /// The settings the edits are sent with.
    package var settings: ApplySettings
    /// Environment variable names and files the target needs (never their values).
    package var access: Access
    /// How the input is read: to plan it, to plan it again after an interrupted plan, and to write rejects.
    package var reading: Reading
    /// Where rejected and failed edits are written.
    package var rejects: String?
    /// How adds without a GlobalID of their own get theirs; nil in journals of releases before ordered IDs, which
    /// derived them ``DerivedGlobalID/Scheme/hashed``.
    package var globalIds: DerivedGlobalID.Scheme?

    /// How the input is read: its format and the options of the command line, and whether invalid records are
    /// skipped.
    package struct Reading: Sendable, Hashable, Codable {
        package var format: InputFormat
        package var kindField: String?
        package var mapping: [String: String]
        package var x: String?
        package var y: String?
        package var wkt: String?
        package var wkid: Int
        package var table: String?
        package var skipInvalid: Bool
        /// What a rejects file in the input's format starts with (a CSV file's header row), as the reader found it.
        package var rejectsHeader: String?
        /// The record size limit in bytes; nil in journals from before it was recorded (the default then applied).
        package var maxRecordSize: Int?

        package init(format: InputFormat, options: InputOptions, skipInvalid: Bool) {
            self.format = format
            kindField = options.kindField
            mapping = options.csv.mapping
            x = options.csv.x
            y = options.csv.y
            wkt = options.csv.wkt
            wkid = options.csv.wkid
            table = options.geoPackage.table
            maxRecordSize = options.maxRecordSize
            self.skipInvalid = skipInvalid
        }

        /// The reading options.
        package var options: InputOptions {
            InputOptions(
                kindField: kindField, csv: CSVOptions(mapping: mapping, x: x, y: y, wkt: wkt, wkid: wkid),
                geoPackage: GeoPackageOptions(table: table), maxRecordSize: maxRecordSize ?? InputOptions.defaultMaxRecordSize)
        }
    }

    /// How the target is reached: names of environment variables and files, never secrets.
    package struct Access: Sendable, Hashable, Codable {
        package var tokenEnv: String?
        package var usernameEnv: String?
        package var passwordEnv: String?
        package var tokenURL: String?
        package var caFile: String?
        package var insecure: Bool

        package init(
            tokenEnv: String? = nil, usernameEnv: String? = nil, passwordEnv: String? = nil, tokenURL: String? = nil,
            caFile: String? = nil, insecure: Bool = false
        ) {
            self.tokenEnv = tokenEnv
            self.usernameEnv = usernameEnv
            self.passwordEnv = passwordEnv
            self.tokenURL = tokenURL
            self.caFile = caFile
            self.insecure = insecure
        }
    }

    package init(
        input: String, inputSize: Int64, target: String, localData: String? = nil, localDataset: String? = nil,
        layer: Int, objectIdField: String, globalIdField: String, settings: ApplySettings, access: Access = Access(), reading: Reading,
        rejects: String? = nil, globalIds: DerivedGlobalID.Scheme = .ordered
    ) {
        self.globalIds = globalIds
        self.reading = reading
        self.rejects = rejects
        self.input = input
        self.inputSize = inputSize
        self.target = target
        self.localData = localData
        self.localDataset = localDataset
        self.layer = layer
        self.objectIdField = objectIdField
        self.globalIdField = globalIdField
        self.settings = settings
        self.access = access
    }
}

/// How edits are sent.
package struct ApplySettings: Sendable, Hashable, Codable {
    /// Edits per applyEdits request. Default 500.
    package var batchSize: Int
    /// Requests in flight at once. Default 4.
    package var concurrency: Int
    /// The most edits sent per second, or nil for as fast as the service answers.
    package var rate: Double?
    /// Whether one failed edit rolls back its whole batch (`rollbackOnFailure=true`). Default false: each edit
    /// succeeds or fails on its own.
    package var rollbackOnFailure: Bool
    /// Whether adds of related layers keyed to a parent added by the same input go with it in one atomic
    /// service-level applyEdits (a deep insert).
    package var related: Bool
    /// Files to attach to the adds, matched by a key attribute.
    package var attachments: AttachmentMatching?
    /// Whether attributes the layer has no field for are left out of the edits, rather than making their records
    /// invalid.
    package var dropUnknownFields: Bool

    package init(
        batchSize: Int = 500, concurrency: Int = 4, rate: Double? = nil, rollbackOnFailure: Bool = false, related: Bool = false,
        attachments: AttachmentMatching? = nil, dropUnknownFields: Bool = false
    ) {
        self.dropUnknownFields = dropUnknownFields
        self.batchSize = batchSize
        self.concurrency = concurrency
        self.rate = rate
        self.rollbackOnFailure = rollbackOnFailure
        self.related = related
        self.attachments = attachments
    }

    private enum CodingKeys: String, CodingKey {
        case batchSize, concurrency, rate, rollbackOnFailure, related, attachments, dropUnknownFields
    }

    /// Reads the settings a journal recorded; those of version 1 had no `related`, and earlier ones no
    /// `dropUnknownFields` (false).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        batchSize = try container.decode(Int.self, forKey: .batchSize)
        concurrency = try container.decode(Int.self, forKey: .concurrency)
        rate = try container.decodeIfPresent(Double.self, forKey: .rate)
        rollbackOnFailure = try container.decode(Bool.self, forKey: .rollbackOnFailure)
        related = try container.decodeIfPresent(Bool.self, forKey: .related) ?? false
        attachments = try container.decodeIfPresent(AttachmentMatching.self, forKey: .attachments)
        dropUnknownFields = try container.decodeIfPresent(Bool.self, forKey: .dropUnknownFields) ?? false
    }
}

/// Where the files to attach are and how they are matched to input records.
package struct AttachmentMatching: Sendable, Hashable, Codable {
    /// The directory of the files, as an absolute path.
    package var directory: String
    /// The input attribute whose value names a record's files: `DIR/VALUE.ext`, `DIR/VALUE_anything.ext` and every
    /// file in `DIR/VALUE/`.
    package var keyField: String
    /// Files larger than this many bytes go through the service's `uploads` resource rather than inline. Default
    /// 10 MB, as the arcgis Python client does.
    package var uploadThreshold: Int64

    package init(directory: String, keyField: String, uploadThreshold: Int64 = 10_000_000) {
        self.directory = directory
        self.keyField = keyField
        self.uploadThreshold = uploadThreshold
    }
}
