import { describe, expect, it } from "vitest";
import {
  EMPTY_PAYLOAD_SHA256,
  type RequestToSign,
  amzDate,
  authorizationHeader,
  canonicalQueryString,
  canonicalRequest,
  encodeS3Path,
  presignedQuery,
  sha256Hex,
  stringToSign,
} from "./sigv4.js";

/**
 * The worked examples of AWS's documentation: "Examples of Signature
 * Calculations" in the Amazon S3 API Reference (sig-v4-header-based-auth and
 * sigv4-query-string-auth), and the generic Signature Version 4 test suite.
 * Their credentials and dates are AWS's published example values.
 */
const S3_EXAMPLE_CREDENTIALS = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const S3_EXAMPLE_DATE = new Date("2013-05-24T00:00:00Z");
const S3_SCOPE = { region: "us-east-1", service: "s3" };
const EXAMPLE_HOST = "examplebucket.s3.amazonaws.com";

function signatureOf(header: string): string {
  return /Signature=([0-9a-f]{64})$/.exec(header)?.[1] ?? "";
}

describe("SigV4: AWS's S3 examples", () => {
  it("GET Object with a Range header: canonical request, string to sign and signature", () => {
    const request: RequestToSign = {
      method: "GET",
      canonicalPath: "/test.txt",
      query: [],
      headers: {
        Host: EXAMPLE_HOST,
        Range: "bytes=0-9",
        "x-amz-content-sha256": EMPTY_PAYLOAD_SHA256,
        "x-amz-date": amzDate(S3_EXAMPLE_DATE),
      },
      payloadHash: EMPTY_PAYLOAD_SHA256,
    };
    expect(canonicalRequest(request)).toBe(
      [
        "GET",
        "/test.txt",
        "",
        `host:${EXAMPLE_HOST}`,
        "range:bytes=0-9",
        `x-amz-content-sha256:${EMPTY_PAYLOAD_SHA256}`,
        "x-amz-date:20130524T000000Z",
        "",
        "host;range;x-amz-content-sha256;x-amz-date",
        EMPTY_PAYLOAD_SHA256,
      ].join("\n"),
    );
    expect(stringToSign(request, S3_EXAMPLE_DATE, S3_SCOPE)).toBe(
      "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972",
    );
    expect(authorizationHeader(request, S3_EXAMPLE_DATE, S3_SCOPE, S3_EXAMPLE_CREDENTIALS)).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request," +
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date," +
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
    );
  });

  it("PUT Object with a signed payload and a key that needs encoding", () => {
    const body = "Welcome to Amazon S3.";
    const payloadHash = sha256Hex(body);
    expect(payloadHash).toBe("44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
    const request: RequestToSign = {
      method: "PUT",
      canonicalPath: `/${encodeS3Path("test$file.text")}`,
      query: [],
      headers: {
        Date: "Fri, 24 May 2013 00:00:00 GMT",
        Host: EXAMPLE_HOST,
        "x-amz-content-sha256": payloadHash,
        "x-amz-date": "20130524T000000Z",
        "x-amz-storage-class": "REDUCED_REDUNDANCY",
      },
      payloadHash,
    };
    expect(request.canonicalPath).toBe("/test%24file.text");
    expect(signatureOf(authorizationHeader(request, S3_EXAMPLE_DATE, S3_SCOPE, S3_EXAMPLE_CREDENTIALS))).toBe(
      "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
    );
  });

  it("GET Bucket lifecycle: a query parameter without a value", () => {
    const request: RequestToSign = {
      method: "GET",
      canonicalPath: "/",
      query: [["lifecycle", ""]],
      headers: { Host: EXAMPLE_HOST, "x-amz-content-sha256": EMPTY_PAYLOAD_SHA256, "x-amz-date": "20130524T000000Z" },
      payloadHash: EMPTY_PAYLOAD_SHA256,
    };
    expect(signatureOf(authorizationHeader(request, S3_EXAMPLE_DATE, S3_SCOPE, S3_EXAMPLE_CREDENTIALS))).toBe(
      "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543",
    );
  });

  it("Get Bucket (list objects): query parameters sorted by name", () => {
    const request: RequestToSign = {
      method: "GET",
      canonicalPath: "/",
      query: [
        ["prefix", "J"],
        ["max-keys", "2"],
      ],
      headers: { Host: EXAMPLE_HOST, "x-amz-content-sha256": EMPTY_PAYLOAD_SHA256, "x-amz-date": "20130524T000000Z" },
      payloadHash: EMPTY_PAYLOAD_SHA256,
    };
    expect(canonicalQueryString(request.query)).toBe("max-keys=2&prefix=J");
    expect(signatureOf(authorizationHeader(request, S3_EXAMPLE_DATE, S3_SCOPE, S3_EXAMPLE_CREDENTIALS))).toBe(
      "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
    );
  });

  it("presigned GET URL valid for a day", () => {
    const query = presignedQuery(
      { method: "GET", canonicalPath: "/test.txt", host: EXAMPLE_HOST, expiresInSeconds: 86_400 },
      S3_EXAMPLE_DATE,
      S3_SCOPE,
      S3_EXAMPLE_CREDENTIALS,
    );
    expect(Object.fromEntries(query)).toEqual({
      "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
      "X-Amz-Credential": "AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request",
      "X-Amz-Date": "20130524T000000Z",
      "X-Amz-Expires": "86400",
      "X-Amz-SignedHeaders": "host",
      "X-Amz-Signature": "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
    });
  });

  it("refuses a presigned URL outside S3's one second to seven days", () => {
    const input = { method: "GET", canonicalPath: "/a", host: EXAMPLE_HOST };
    expect(() => presignedQuery({ ...input, expiresInSeconds: 0 }, S3_EXAMPLE_DATE, S3_SCOPE, S3_EXAMPLE_CREDENTIALS)).toThrow(RangeError);
    expect(() => presignedQuery({ ...input, expiresInSeconds: 604_801 }, S3_EXAMPLE_DATE, S3_SCOPE, S3_EXAMPLE_CREDENTIALS)).toThrow(
      RangeError,
    );
  });
});

describe("SigV4: the generic test suite", () => {
  const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
  const at = new Date("2015-08-30T12:36:00Z");
  const scope = { region: "us-east-1", service: "service" };
  const headers = { Host: "example.amazonaws.com", "X-Amz-Date": "20150830T123600Z" };

  it("get-vanilla", () => {
    const request: RequestToSign = { method: "GET", canonicalPath: "/", query: [], headers, payloadHash: EMPTY_PAYLOAD_SHA256 };
    expect(authorizationHeader(request, at, scope, credentials)).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request," +
        "SignedHeaders=host;x-amz-date," +
        "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
    );
  });

  it("get-vanilla-query-order-key-case: parameters sorted by name whatever order they came in", () => {
    const request: RequestToSign = {
      method: "GET",
      canonicalPath: "/",
      query: [
        ["Param2", "value2"],
        ["Param1", "value1"],
      ],
      headers,
      payloadHash: EMPTY_PAYLOAD_SHA256,
    };
    expect(signatureOf(authorizationHeader(request, at, scope, credentials))).toBe(
      "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500",
    );
  });
});

describe("SigV4 encoding", () => {
  it("encodes all but the unreserved characters, keeping slashes between key segments", () => {
    expect(encodeS3Path("media/a b/(x)!*'~._-.png")).toBe("media/a%20b/%28x%29%21%2A%27~._-.png");
    expect(canonicalQueryString([["k", "a=b&c d/"]])).toBe("k=a%3Db%26c%20d%2F");
  });

  it("writes dates in the basic ISO 8601 form", () => {
    expect(amzDate(new Date("2026-11-22T08:21:34.567Z"))).toBe("20261122T082134Z");
  });
});
