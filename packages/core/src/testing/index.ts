export { describeStorageContract, type StorageContractCase, type StorageContractOptions } from "./storage-contract.js";
