/**
 * Object size against the limits a default control plane enforces on a create or update.
 * Measured as the JSON the client sends (kubectl sends JSON), in UTF-8 bytes.
 */
import { byteLength } from '../base/json';
import type { FieldError } from '../k8s/errors';

/**
 * The apiserver reads at most 3 MiB of a request body: k8s.io/apiserver pkg/server/config.go
 * (`MaxRequestBodyBytes: int64(3 * 1024 * 1024)`, the default of ServerRunOptions.MaxRequestBodyBytes
 * in pkg/server/options/server_run_options.go), enforced by limitedReadBody in pkg/endpoints/handlers/rest.go,
 * which answers NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit)) —
 * "Request entity too large: limit is 3145728" (HTTP 413). The same in every release the
 * Workbench targets (1.30 on).
 */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/**
 * etcd refuses a request over its --max-request-bytes, 1.5 MiB by default (etcd's
 * embed.DefaultMaxRequestBytes = 1.5 * 1024 * 1024); the apiserver then fails the write with
 * "etcdserver: request is too large" (k8s.io/apiserver pkg/endpoints/handlers/rest.go
 * isTooLargeError, which retries once without managedFields). etcd stores the object as
 * protobuf, usually smaller than its JSON, so over this size is a warning, not a certainty.
 */
export const ETCD_DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** Sizes of objects and arrays already measured: an edit makes new objects only along its path, so a keystroke re-measures that path alone. */
const sizes = new WeakMap<object, number>();

/** UTF-8 bytes of `JSON.stringify(value)` (for JSON values), memoised per object and array. */
export function objectBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return byteLength(JSON.stringify(value));
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'bigint':
      return String(value).length;
    case 'object': {
      if (value === null) return 4;
      const hit = sizes.get(value);
      if (hit !== undefined) return hit;
      let n = 2;
      let first = true;
      if (Array.isArray(value)) {
        for (const v of value) {
          n += (first ? 0 : 1) + (v === undefined || typeof v === 'function' || typeof v === 'symbol' ? 4 : objectBytes(v));
          first = false;
        }
      } else {
        for (const [k, v] of Object.entries(value)) {
          if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
          n += (first ? 0 : 1) + byteLength(JSON.stringify(k)) + 1 + objectBytes(v);
          first = false;
        }
      }
      sizes.set(value, n);
      return n;
    }
    default:
      return 0;
  }
}

/** An error over the apiserver's request limit, a warning over etcd's default; [] below both. */
export function sizeProblems(object: unknown, bytes = objectBytes(object)): FieldError[] {
  if (bytes > MAX_REQUEST_BODY_BYTES)
    return [
      {
        type: 'TooLong',
        field: '',
        message: `Request entity too large: limit is ${MAX_REQUEST_BODY_BYTES}`,
        hint: `The object is ${mib(bytes)} as JSON: the kube-apiserver reads at most 3 MiB of a request body (HTTP 413). Split it into several objects.`,
      },
    ];
  if (bytes > ETCD_DEFAULT_MAX_REQUEST_BYTES)
    return [
      {
        type: 'TooLong',
        field: '',
        severity: 'warning',
        message: `the object is ${mib(bytes)} as JSON: over etcd's default request limit of 1.5 MiB, the write may fail with "etcdserver: request is too large"`,
        hint: "etcd's --max-request-bytes is 1.5 MiB unless the cluster raised it; etcd stores protobuf, often smaller than JSON. Split the object to be safe.",
      },
    ];
  return [];
}
