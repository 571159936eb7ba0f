import { randomBytes } from "node:crypto";
import type { Random } from "../ports/random.js";

export const systemRandom: Random = { bytes: (length) => new Uint8Array(randomBytes(length)) };
