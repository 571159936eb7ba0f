import { startExample } from "./app.ts";

const example = await startExample({ port: Number(process.env.PORT ?? 8080) });
console.log(`Host application on ${example.url}/hello, Kith on ${example.url}/api/v2/instance`);
console.log(`Try: curl -H 'Authorization: Bearer ${example.demoToken}' ${example.url}/api/v1/accounts/verify_credentials`);
process.once("SIGINT", () => void example.close().then(() => process.exit(0)));
