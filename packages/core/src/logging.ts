import { type Logger, getLogger as getLogTapeLogger } from "@logtape/logtape";

/**
 * Kith logs through LogTape, as Fedify does, under the root category "kith".
 * A library that embeds Kith stays silent until its host configures LogTape;
 * the bundled server configures it from KITH_LOG_LEVEL.
 */
export function getLogger(category: readonly string[]): Logger {
  return getLogTapeLogger(["kith", ...category]);
}

export type { Logger };
