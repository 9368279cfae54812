// Validation with the kubernetes-models classes (Kubernetes core/apps/autoscaling/... and KEDA), plus
// the unknown-field check those schemas lack: the Kubernetes OpenAPI schemas carry no
// `additionalProperties: false`, yet the API server rejects an unknown field under kubectl's default
// `--validate=strict` (and prunes it from a custom resource). The object is validated through a
// Proxy that records which keys the compiled validator reads; a key it never reads is not in the
// schema. Maps (labels, resources, trigger metadata) are iterated by the validator, so their keys
// count as read.
import * as core from "kubernetes-models/v1";
import * as apps from "kubernetes-models/apps/v1";
import * as autoscaling from "kubernetes-models/autoscaling/v2";
import * as batch from "kubernetes-models/batch/v1";
import * as networking from "kubernetes-models/networking.k8s.io/v1";
import * as policy from "kubernetes-models/policy/v1";
import * as keda from "@kubernetes-models/keda/keda.sh/v1alpha1";
import { ObjectMeta } from "@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta";

export const CORE = core;
export { ObjectMeta };

// apiVersion + " " + kind -> model class, for every top-level kind of the groups above.
export function modelRegistry() {
  const registry = new Map();
  for (const group of [core, apps, autoscaling, batch, networking, policy, keda]) {
    for (const cls of Object.values(group)) {
      if (typeof cls === "function" && cls.apiVersion && cls.kind) {
        registry.set(`${cls.apiVersion} ${cls.kind}`, cls);
      }
    }
  }
  return registry;
}

export function escapePointer(key) {
  return String(key).replace(/~/g, "~0").replace(/\//g, "~1");
}

function tracked(value, pointer, seen) {
  if (Array.isArray(value)) return value.map((v, i) => tracked(v, `${pointer}/${i}`, seen));
  if (value === null || typeof value !== "object") return value;
  const read = new Set();
  const target = {};
  for (const [k, v] of Object.entries(value)) target[k] = tracked(v, `${pointer}/${escapePointer(k)}`, seen);
  seen.push({ pointer, keys: Object.keys(value), read });
  return new Proxy(target, {
    get(t, key, receiver) {
      if (typeof key === "string") read.add(key);
      return Reflect.get(t, key, receiver);
    },
  });
}

// Validates `data` with the model class `cls`. `pointer` prefixes the JSON pointers reported.
// -> [{ pointer, message }], empty when valid.
export function validateModel(cls, data, pointer = "") {
  const seen = [];
  const proxy = tracked(data, pointer, seen);
  try {
    cls.prototype.validate.call(proxy);
  } catch (err) {
    if (!Array.isArray(err.errors)) throw err;
    return err.errors.map((e) => ({ pointer: pointer + e.instancePath, message: schemaMessage(e) }));
  }
  const unknown = [];
  for (const { pointer: p, keys, read } of seen) {
    for (const k of keys) {
      if (!read.has(k)) unknown.push({ pointer: `${p}/${escapePointer(k)}`, message: "unknown field (not in the schema)" });
    }
  }
  return unknown;
}

export function schemaMessage(e) {
  const extra = e.params?.allowedValues ? ` (${e.params.allowedValues.join(", ")})`
    : e.params?.additionalProperty ? ` '${e.params.additionalProperty}'`
    : "";
  return `${e.message}${extra}`;
}
