export { describeStorageContract, type StorageContractCase, type StorageContractOptions } from "./storage-contract.js";
export { createTestKith, type TestKith, type TestKithOptions, type TestUser, type RequestOptions } from "./test-kith.js";
