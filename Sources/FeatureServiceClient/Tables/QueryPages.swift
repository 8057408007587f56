public import FeatureModel

/// The pages of a query, fetched one after another as they are iterated: an `AsyncSequence` of ``FeatureSet``s.
///
/// Each page asks for the rows after the ones received (`resultOffset`); iteration ends after a page without
/// `exceededTransferLimit`. Nothing is fetched until iteration starts; breaking out of the loop stops fetching;
/// cancelling the iterating task cancels the page request in flight.
///
/// ```swift
/// for try await page in species.queryPages(QueryParameters(orderByFields: ["OBJECTID"], resultRecordCount: 100)) {
///     print(page.features.count)
/// }
/// ```
public struct QueryPages: AsyncSequence, Sendable {
    /// Each element is one page of the query.
    public typealias Element = FeatureSet

    let client: FeatureLayerClient
    let parameters: QueryParameters

    /// An iterator that fetches the pages one request at a time.
    public func makeAsyncIterator() -> Iterator {
        Iterator(client: client, parameters: parameters, offset: parameters.resultOffset ?? 0)
    }

    /// Fetches the next page on demand.
    public struct Iterator: AsyncIteratorProtocol {
        let client: FeatureLayerClient
        var parameters: QueryParameters
        var offset: Int
        var finished = false
        var pages = 0

        /// The next page, or nil after the last one.
        /// - Throws: ``FeatureServiceError`` (also when the service claims more rows but sends none, or after
        ///   ``FeatureLayerClient`` `maxPages` pages); `CancellationError`.
        public mutating func next() async throws -> FeatureSet? {
            guard !finished else { return nil }
            try Task.checkCancellation()
            guard pages < FeatureLayerClient.maxPages else {
                finished = true
                throw FeatureServiceError.invalidRequest(
                    "gave up after \(pages) pages; use a larger resultRecordCount", operation: "paged query", url: client.exchangeURL("query"))
            }
            parameters.resultOffset = offset
            let page = try await client.post("query", fields: parameters.formFields, as: FeatureSet.self, operation: "paged query")
            pages += 1
            if page.exceededTransferLimit != true {
                finished = true
            } else if page.features.isEmpty {
                finished = true
                throw FeatureServiceError.invalidRequest(
                    "the service reported more rows (exceededTransferLimit) at offset \(offset) but sent none; it may not support paging",
                    operation: "paged query", url: client.exchangeURL("query"))
            }
            offset += page.features.count
            return page
        }
    }
}

/// The features of a query, page after page: an `AsyncSequence` of ``Feature``s over ``QueryPages``.
public struct QueryFeatures: AsyncSequence, Sendable {
    /// Each element is one feature.
    public typealias Element = Feature

    let pages: QueryPages

    /// An iterator that fetches a page when the previous page's features are used up.
    public func makeAsyncIterator() -> Iterator {
        Iterator(pages: pages.makeAsyncIterator())
    }

    /// Hands out the features of each page, fetching the next page when one is used up.
    public struct Iterator: AsyncIteratorProtocol {
        var pages: QueryPages.Iterator
        var buffer: [Feature] = []
        var position = 0

        /// The next feature, or nil after the last.
        /// - Throws: ``FeatureServiceError``; `CancellationError`.
        public mutating func next() async throws -> Feature? {
            while position == buffer.count {
                guard let page = try await pages.next() else { return nil }
                buffer = page.features
                position = 0
            }
            defer { position += 1 }
            return buffer[position]
        }
    }
}
