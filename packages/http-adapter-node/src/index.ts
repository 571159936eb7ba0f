export { type BodyLimits, BODY_TOO_LARGE_CODE, BodyTooLargeError, bodyLimitFor } from "./body-limits.js";
export { type ArrivalQueue, type ScheduleTurn, createArrivalQueue, startsInArrivalOrder } from "./arrival-queue.js";
export { closeOnSignals } from "./close-on-signals.js";
export { type EventLoopDelayProbe, startEventLoopDelayProbe } from "./event-loop-delay.js";
export { DEFAULT_MAX_EVENT_LOOP_DELAY_MS, type LoadSheddingOptions } from "./load-shedding.js";
export { type IpAddress, type IpRange, formatIp, ipInRange, normalizeIp, parseIp, parseIpRange } from "./ip-address.js";
export { type NodeServer, type NodeServerOptions, type NodeServerTls, startNodeServer } from "./node-server.js";
export {
  type NodeFetchHandler,
  type NodeHandlerOptions,
  type NodeRequestInfo,
  type NodeRequestListener,
  type NodeServerErrorContext,
  toNodeHandler,
} from "./node-handler.js";
export { type ContentCoding, MIN_COMPRESSED_BYTES, chooseCoding, compressResponse } from "./compress-response.js";
export { type RequestFromNode, type RequestFromNodeOptions, UnacceptableRequestError, requestFromNode } from "./request-from-node.js";
export { type ForwardedView, type TrustedProxies, compileTrustedProxies, resolveForwarded } from "./trusted-proxies.js";
export { writeResponse } from "./write-response.js";
