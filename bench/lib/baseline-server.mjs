// The practical limit a Kith request is compared with: a bare node:http
// server answering the same JSON from memory. Reads get the bytes Kith sent;
// writes have their JSON body parsed, then get Kith's answer. Started with
// the path of a JSON file `{ "<METHOD> <path>": { status, headers, body } }`;
// prints the port it listens on.

import { readFileSync } from "node:fs";
import http from "node:http";

const answers = JSON.parse(readFileSync(process.argv[2], "utf8"));
const server = http.createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    if (chunks.length) JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const answer = answers[`${request.method} ${request.url}`];
    if (!answer) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(answer.status, answer.headers).end(answer.body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
