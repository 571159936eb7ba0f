export { RedisQueue, createRedisQueue, type RedisQueueOptions } from "./redis-queue.js";
