import Hummingbird
import NIOCore

/// The request context of the feature service: Hummingbird's basics plus the connection's channel, which the fault
/// middleware closes to drop a connection without answering.
struct FeatureServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}
