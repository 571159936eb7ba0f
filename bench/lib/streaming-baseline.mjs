// The practical limit of the streaming fan-out: a bare node:http server that
// holds every GET as a server-sent-event stream (with the headers Kith's
// stream had) and, on a POST, parses its JSON body, answers with Kith's
// answer to the same post and writes Kith's event, the same bytes, to every
// stream it holds. Started with the path of a JSON file
// `{ streamHeaders, event, answer: { status, headers, body } }`; prints the
// port it listens on.

import { readFileSync } from "node:fs";
import http from "node:http";

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
const streams = new Set();

const server = http.createServer((request, response) => {
  if (request.method === "GET") {
    response.writeHead(200, spec.streamHeaders);
    response.flushHeaders();
    streams.add(response);
    request.on("close", () => streams.delete(response));
    return;
  }
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    JSON.parse(Buffer.concat(chunks).toString("utf8"));
    response.writeHead(spec.answer.status, spec.answer.headers).end(spec.answer.body);
    for (const stream of streams) stream.write(spec.event);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
