import { describePubSubContract } from "../testing/pubsub-contract.js";
import { MemoryPubSub } from "./memory-pubsub.js";

describePubSubContract("memory", async () => {
  const pubsub = new MemoryPubSub();
  return { pubsub, close: () => pubsub.close() };
});
