export { describeStorageContract, type StorageContractCase, type StorageContractOptions } from "./storage-contract.js";
export { describeQueueContract, type QueueContractCase, type QueueContractOptions, type QueueUnderTest } from "./queue-contract.js";
export { createTestKith, type TestKith, type TestKithOptions, type TestUser, type RequestOptions } from "./test-kith.js";
export { eventually, sleep } from "./eventually.js";
/** A clock that moves only when told, for expiry, mute durations and rate limits. */
export { FakeClock } from "../memory/system-clock.js";
export { withStorageFaults, type StorageFaults } from "./storage-faults.js";
export { describeBlobStoreContract, type BlobStoreUnderTest } from "./blob-contract.js";
export { describePubSubContract, type PubSubUnderTest } from "./pubsub-contract.js";
/** ActivityStreams vocabulary (Fedify's), for tests that build activities themselves: forged, replayed or hand-made ones. */
export * as vocab from "@fedify/fedify/vocab";
export { startRemoteServer, type RemoteServer, type RemoteActor, type ReceivedRequest, type SignOptions } from "./remote-server.js";
export { preloadedContextLoader, MASTODON_CONTEXT } from "./offline-documents.js";
