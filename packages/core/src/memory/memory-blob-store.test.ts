import { describeBlobStoreContract } from "../testing/blob-contract.js";
import { MemoryBlobStore } from "./memory-blob-store.js";

describeBlobStoreContract("memory", async () => ({ store: new MemoryBlobStore(), close: async () => {} }));
