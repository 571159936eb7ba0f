import type { Kith } from "@kith/core";
import type { ServerConfig } from "../config.js";
import { type Command, type CommandIo, UsageError, onePositional, parse, withKith } from "./command.js";
import { localAccountId, serverActor } from "./server-actor.js";

/**
 * `kith accounts`, as tootctl's: create, modify, delete, approve and reject local accounts. Every change goes
 * through the core's account and administration services, as the server itself (see server-actor.ts).
 */

async function create(rest: string[], config: ServerConfig, io: CommandIo): Promise<number> {
  const { values, positionals } = parse(rest, {
    email: { type: "string" },
    confirmed: { type: "boolean" },
    role: { type: "string" },
    password: { type: "string" },
  });
  const username = onePositional(positionals, "accounts create takes one USERNAME");
  if (typeof values.email !== "string") throw new UsageError("accounts create needs --email=EMAIL");
  const email = values.email;
  const { password } = await withKith(config, (kith) =>
    kith.services.accounts.createLocalAccount({
      username,
      email,
      confirmed: values.confirmed === true,
      ...(typeof values.role === "string" && { role: values.role }),
      ...(typeof values.password === "string" && { password: values.password }),
    }),
  );
  io.out("OK");
  io.out(`New password: ${password}`);
  return 0;
}

async function modify(rest: string[], config: ServerConfig, io: CommandIo): Promise<number> {
  const { values, positionals } = parse(rest, {
    role: { type: "string" },
    approve: { type: "boolean" },
    disable: { type: "boolean" },
    enable: { type: "boolean" },
    confirm: { type: "boolean" },
    "reset-password": { type: "boolean" },
  });
  const username = onePositional(positionals, "accounts modify takes one USERNAME");
  if (values.disable && values.enable) throw new UsageError("--disable and --enable exclude each other");
  const password = await withKith(config, async (kith) => {
    await kith.services.accounts.modify(username, {
      ...(typeof values.role === "string" && { role: values.role }),
      approve: values.approve === true,
      disable: values.disable === true,
      enable: values.enable === true,
      confirm: values.confirm === true,
    });
    if (!values["reset-password"]) return null;
    // A generated password; every session of the account ends with the old one.
    const reset = await kith.services.adminAccounts.setPassword(serverActor(), await localAccountId(kith, username));
    return reset.password;
  });
  io.out("OK");
  if (password) io.out(`New password: ${password}`);
  return 0;
}

async function remove(rest: string[], config: ServerConfig, io: CommandIo): Promise<number> {
  const { positionals } = parse(rest, {});
  const username = onePositional(positionals, "accounts delete takes one USERNAME");
  await withKith(config, async (kith) => {
    const id = await localAccountId(kith, username);
    const actor = serverActor();
    // The administration API deletes suspended accounts only: suspended first (which other servers are told), then removed.
    const { row } = await kith.services.adminAccounts.get(id);
    if (row.suspendedAt === null) await kith.services.adminAccounts.act(actor, id, "suspend");
    await kith.services.adminAccounts.delete(actor, id);
  });
  io.out("OK");
  return 0;
}

/** The usernames approve and reject act on: the one named, or with --all every account waiting for approval. */
async function pendingUsernames(kith: Kith, positionals: readonly string[], all: boolean, verb: string): Promise<string[]> {
  if (all) {
    if (positionals.length) throw new UsageError(`accounts ${verb} takes USERNAME or --all, not both`);
    const pending = await kith.services.adminAccounts.list({ origin: "local", statuses: ["pending"] }, { limit: 1_000 });
    return pending.map((view) => view.row.username);
  }
  return [onePositional(positionals, `accounts ${verb} takes one USERNAME, or --all`)];
}

function decide(verb: "approve" | "reject") {
  return async (rest: string[], config: ServerConfig, io: CommandIo): Promise<number> => {
    const { values, positionals } = parse(rest, { all: { type: "boolean" } });
    const done = await withKith(config, async (kith) => {
      const usernames = await pendingUsernames(kith, positionals, values.all === true, verb);
      for (const username of usernames) {
        const id = await localAccountId(kith, username);
        if (verb === "approve") await kith.services.adminAccounts.approve(id, null);
        else await kith.services.adminAccounts.reject(id, null);
      }
      return usernames.length;
    });
    io.out(values.all ? `OK, ${verb === "approve" ? "approved" : "rejected"} ${done}` : "OK");
    return 0;
  };
}

const ACTIONS: Record<string, (rest: string[], config: ServerConfig, io: CommandIo) => Promise<number>> = {
  create,
  modify,
  delete: remove,
  approve: decide("approve"),
  reject: decide("reject"),
};

export const accountsCommand: Command = {
  name: "accounts",
  summary: "Create, change, approve, reject and delete local accounts",
  usage: [
    "accounts create USERNAME --email=EMAIL [--confirmed] [--role=ROLE] [--password=PASSWORD]",
    '    Create a local account; prints "New password: ..." last',
    "accounts modify USERNAME [--role=ROLE] [--approve] [--disable|--enable] [--confirm] [--reset-password]",
    "    Change an account's role or state; --reset-password prints a new password and ends its sessions",
    "accounts delete USERNAME",
    "    Suspend the account (other servers are told) and remove it",
    "accounts approve USERNAME|--all",
    "    Let an account waiting for approval in (every one with --all)",
    "accounts reject USERNAME|--all",
    "    Refuse an account waiting for approval; it is removed",
  ],
  async run(args, config, io) {
    const [action = "", ...rest] = args;
    const run = ACTIONS[action];
    if (!run) throw new UsageError(`accounts takes ${Object.keys(ACTIONS).join(", ")}`);
    return run(rest, config, io);
  },
};
