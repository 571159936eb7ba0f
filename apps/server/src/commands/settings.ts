import type { RegistrationMode } from "@kith/core";
import type { ServerConfig } from "../config.js";
import { type Command, type CommandIo, UsageError, withKith } from "./command.js";

const REGISTRATION_WORDS: Record<string, RegistrationMode> = { open: "open", approval: "approval", close: "closed", closed: "closed" };

async function settings(args: string[], config: ServerConfig, io: CommandIo): Promise<number> {
  const [name, value, ...extra] = args;
  if (name !== "registrations" || !value || extra.length) throw new UsageError("settings registrations open|approval|close");
  const mode = REGISTRATION_WORDS[value];
  if (!mode) throw new UsageError(`registrations take open, approval or close, not ${value}`);
  await withKith(config, (kith) => kith.services.settings.update({ registrationsMode: mode }));
  io.out("OK");
  return 0;
}

/** `kith settings registrations`, with tootctl's words. */
export const settingsCommand: Command = {
  name: "settings",
  summary: "Change who may sign up",
  usage: [
    "settings registrations open|approval|close",
    "    Who may sign up: anyone, anyone after approval (a new server's default), or no one",
  ],
  run: settings,
};
