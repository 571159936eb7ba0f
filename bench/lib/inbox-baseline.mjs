// The practical limit of an inbox: a bare node:http server that checks the
// digest and the draft-cavage signature of each POST with node:crypto, the
// signers' public keys held in memory, parses the activity and keeps it in an
// array. Started with the path of a JSON file `{ keys: { keyId: publicKeyPem } }`;
// prints the port it listens on. GET /count answers how many verified.

import { readFileSync } from "node:fs";
import http from "node:http";
import { publicKeyObject, verifySigned } from "./http-signature.mjs";

const { keys } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const byKeyId = new Map(Object.entries(keys).map(([keyId, pem]) => [keyId, publicKeyObject(pem)]));
const stored = [];
const server = http.createServer((request, response) => {
  if (request.method === "GET") {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ verified: stored.length }));
    return;
  }
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const body = Buffer.concat(chunks);
    const keyId = verifySigned({ method: request.method, path: request.url, headers: request.headers, body }, (id) => byKeyId.get(id));
    if (!keyId) {
      response.writeHead(401).end();
      return;
    }
    stored.push(JSON.parse(body.toString("utf8")));
    response.writeHead(202).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
