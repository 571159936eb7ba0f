export { RedisQueue, createRedisQueue, type RedisQueueOptions } from "./redis-queue.js";
export { RedisPubSub, type RedisPubSubOptions } from "./redis-pubsub.js";
