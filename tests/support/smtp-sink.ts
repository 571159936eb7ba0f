import { type AddressInfo, type Server, type Socket, createServer } from "node:net";

/** One message as the sink received it. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: string[];
  /** The user that authenticated (AUTH PLAIN or LOGIN), if any. */
  readonly user: string | null;
  /** The message as sent after DATA, dot-unstuffed, CRLF line ends. */
  readonly raw: string;
  /** Header values by lower-case name (first occurrence, unfolded). */
  readonly headers: Record<string, string>;
  /** The body, quoted-printable decoded when the message says so. */
  readonly body: string;
}

export interface SmtpSinkOptions {
  /** Accepted credentials; when set, MAIL is refused before a successful AUTH. */
  readonly credentials?: { readonly user: string; readonly pass: string };
  /** Recipients answered with 550. */
  readonly refuseRecipients?: readonly string[];
}

export interface SmtpSink {
  readonly port: number;
  readonly received: ReceivedMail[];
  /** Recipients answered with 550; starts with `refuseRecipients`, changeable while running. */
  readonly refused: Set<string>;
  close(): Promise<void>;
}

function parseMessage(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.indexOf("\r\n\r\n");
  const head = split === -1 ? raw : raw.slice(0, split);
  let body = split === -1 ? "" : raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] ??= line.slice(colon + 1).trim();
  }
  if (/quoted-printable/i.test(headers["content-transfer-encoding"] ?? "")) {
    const bytes = Buffer.from(
      body.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
      "latin1",
    );
    body = bytes.toString("utf8");
  }
  return { headers, body };
}

/**
 * A small SMTP server on a loopback port that keeps what it receives: enough
 * of RFC 5321 (EHLO/HELO, AUTH PLAIN and LOGIN, MAIL, RCPT, DATA with dot
 * stuffing, RSET, NOOP, QUIT) for a real client to deliver through it.
 */
export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const refused = new Set(options.refuseRecipients ?? []);
  const sockets = new Set<Socket>();

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.setEncoding("latin1");
    const reply = (line: string): void => {
      socket.write(`${line}\r\n`);
    };
    let buffer = "";
    let user: string | null = null;
    let from: string | null = null;
    let to: string[] = [];
    let data: string[] | null = null;
    let pendingLogin: { step: "user" | "pass"; user?: string } | null = null;

    const authenticate = (name: string, pass: string): void => {
      const wanted = options.credentials;
      if (wanted && (wanted.user !== name || wanted.pass !== pass)) {
        reply("535 5.7.8 Authentication credentials invalid");
        return;
      }
      user = name;
      reply("235 2.7.0 Authentication successful");
    };

    const command = (line: string): void => {
      if (data) {
        if (line === ".") {
          const raw = data.join("\r\n");
          received.push({ from: from ?? "", to, user, raw, ...parseMessage(raw) });
          data = null;
          from = null;
          to = [];
          reply("250 2.0.0 Queued");
          return;
        }
        data.push(line.startsWith("..") ? line.slice(1) : line);
        return;
      }
      if (pendingLogin) {
        const value = Buffer.from(line, "base64").toString("utf8");
        if (pendingLogin.step === "user") {
          pendingLogin = { step: "pass", user: value };
          reply(`334 ${Buffer.from("Password:").toString("base64")}`);
        } else {
          const name = pendingLogin.user ?? "";
          pendingLogin = null;
          authenticate(name, value);
        }
        return;
      }
      const [verb = "", ...rest] = line.split(" ");
      const argument = rest.join(" ");
      switch (verb.toUpperCase()) {
        case "EHLO":
          socket.write("250-kith-smtp-sink\r\n250-AUTH PLAIN LOGIN\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n");
          return;
        case "HELO":
          reply("250 kith-smtp-sink");
          return;
        case "AUTH": {
          const [mechanism = "", initial] = argument.split(" ");
          if (mechanism.toUpperCase() === "PLAIN" && initial) {
            const [, name = "", pass = ""] = Buffer.from(initial, "base64").toString("utf8").split("\0");
            authenticate(name, pass);
          } else if (mechanism.toUpperCase() === "LOGIN") {
            pendingLogin = { step: "user" };
            reply(`334 ${Buffer.from("Username:").toString("base64")}`);
          } else reply("504 5.5.4 Unrecognized authentication type");
          return;
        }
        case "MAIL":
          if (options.credentials && user === null) {
            reply("530 5.7.0 Authentication required");
            return;
          }
          from = /<([^>]*)>/.exec(argument)?.[1] ?? "";
          to = [];
          reply("250 2.1.0 OK");
          return;
        case "RCPT": {
          const address = /<([^>]*)>/.exec(argument)?.[1] ?? "";
          if (from === null) reply("503 5.5.1 MAIL first");
          else if (refused.has(address)) reply("550 5.1.1 No such user");
          else {
            to.push(address);
            reply("250 2.1.5 OK");
          }
          return;
        }
        case "DATA":
          if (to.length === 0) {
            reply("503 5.5.1 RCPT first");
            return;
          }
          data = [];
          reply("354 End data with <CR><LF>.<CR><LF>");
          return;
        case "RSET":
          from = null;
          to = [];
          reply("250 2.0.0 OK");
          return;
        case "NOOP":
          reply("250 2.0.0 OK");
          return;
        case "QUIT":
          reply("221 2.0.0 Bye");
          socket.end();
          return;
        default:
          reply("502 5.5.2 Command not recognized");
      }
    };

    socket.on("data", (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\r\n"); end !== -1; end = buffer.indexOf("\r\n")) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        command(line);
      }
    });
    reply("220 kith-smtp-sink ESMTP");
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
