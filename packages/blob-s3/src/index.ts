export { S3BlobStore, type S3BlobStoreOptions } from "./s3-blob-store.js";
export { S3RequestError } from "./s3-request-error.js";
export {
  type RequestToSign,
  type SigningCredentials,
  type SigningScope,
  authorizationHeader,
  canonicalRequest,
  presignedQuery,
  signature,
  stringToSign,
} from "./sigv4.js";
