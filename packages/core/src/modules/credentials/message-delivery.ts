import { KithError } from "../../domain/errors.js";
import { getLogger } from "../../logging.js";

/**
 * How credential flows hand mail and SMS to their ports. A code that could
 * not go out is a 503 the caller can retry, never a 500; a notice about a
 * change already made is best effort, since failing the request would hide
 * that the change happened. Only the error's message is logged: a transport
 * error can carry the message, and the message holds the code.
 */
const logger = getLogger(["credentials", "delivery"]);

export type Channel = "mail" | "sms";

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 300) : "unknown error";
}

/** Sends a message that carries a code; a failure becomes `server.unavailable` (503). */
export async function deliverCode(channel: Channel, send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (error) {
    logger.warn("A {channel} code could not be sent: {reason}", { channel, reason: reasonOf(error) });
    throw new KithError("server.unavailable", {
      message: channel === "mail" ? "The code could not be mailed; try again later" : "The code could not be texted; try again later",
    });
  }
}

/** Sends a notice; a failure is logged and the request goes on. */
export async function deliverNotice(channel: Channel, send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (error) {
    logger.warn("A {channel} notice could not be sent: {reason}", { channel, reason: reasonOf(error) });
  }
}
