// The API server's own validation that no OpenAPI schema carries, for the fields rightsize writes.
// Restated from the Kubernetes sources (k8s.io/apimachinery/pkg/util/validation/validation.go:
// IsDNS1123Subdomain, IsDNS1123Label, IsDNS1035Label, IsQualifiedName, IsValidLabelValue,
// IsValidPortName; kubernetes pkg/apis/core/validation: names of containers, volumes and ports,
// nodeSelector as labels; pkg/apis/autoscaling/validation: MaxStabilizationWindowSeconds = 3600,
// MaxPeriodSeconds = 1800, minReplicas >= 1; pkg/apis/apps/validation: the selector matches the
// template's labels). KEDA turns a ScaledObject's advanced.horizontalPodAutoscalerConfig into an
// HPA, so the HPA limits apply there too.
import { escapePointer } from "./models.mjs";

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const PORT_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

function subdomain(s) {
  return typeof s === "string" && s.length <= 253 && DNS1123_SUBDOMAIN.test(s);
}

function dnsLabel(s, re = DNS1123_LABEL) {
  return typeof s === "string" && s.length <= 63 && re.test(s);
}

function qualifiedName(key) {
  const parts = String(key).split("/");
  if (parts.length > 2) return false;
  const name = parts.pop();
  if (parts.length && !subdomain(parts[0])) return false;
  return name.length <= 63 && QUALIFIED_NAME.test(name);
}

function portName(s) {
  return s.length <= 15 && PORT_NAME.test(s) && /[a-z]/.test(s) && !s.includes("--");
}

// -> [{ pointer, message }]
export function apiserverRules(doc) {
  const out = [];
  const name = doc.metadata?.name;
  const nameOk = doc.kind === "Service" ? dnsLabel(name, DNS1035_LABEL) : subdomain(name);
  if (!nameOk) out.push({ pointer: "/metadata/name", message: `'${name}' is not a valid ${doc.kind} name (lower-case RFC 1123${doc.kind === "Service" ? " label starting with a letter" : " subdomain"})` });
  walk(doc, "", out);
  selectorRule(doc.spec, out);
  if (doc.kind === "HorizontalPodAutoscaler") hpaRules(doc.spec ?? {}, "/spec", out);
  const hpaConfig = doc.spec?.advanced?.horizontalPodAutoscalerConfig;
  if (doc.kind === "ScaledObject" && hpaConfig?.behavior) {
    behaviorRules(hpaConfig.behavior, "/spec/advanced/horizontalPodAutoscalerConfig/behavior", out);
  }
  return out;
}

function labelMap(map, pointer, out, what) {
  for (const [k, v] of Object.entries(map ?? {})) {
    const p = `${pointer}/${escapePointer(k)}`;
    if (!qualifiedName(k)) out.push({ pointer: p, message: `'${k}' is not a valid ${what} key` });
    if (what !== "annotation" && !(typeof v === "string" && v.length <= 63 && LABEL_VALUE.test(v))) {
      out.push({ pointer: p, message: `'${v}' is not a valid label value` });
    }
  }
}

function named(list, pointer, out, what, check) {
  (Array.isArray(list) ? list : []).forEach((item, i) => {
    if (item?.name !== undefined && !check(String(item.name))) {
      out.push({ pointer: `${pointer}/${i}/name`, message: `'${item.name}' is not a valid ${what} name` });
    }
  });
}

// Labels, annotations, selectors and pod specs wherever they appear (templates included).
function walk(node, pointer, out) {
  if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${pointer}/${i}`, out));
  if (!node || typeof node !== "object") return;
  for (const [k, v] of Object.entries(node)) {
    const p = `${pointer}/${escapePointer(k)}`;
    if (k === "labels" || k === "matchLabels" || k === "nodeSelector") labelMap(v, p, out, "label");
    else if (k === "annotations") labelMap(v, p, out, "annotation");
    if (k === "containers" || k === "initContainers") {
      named(v, p, out, "container", (s) => dnsLabel(s));
      (Array.isArray(v) ? v : []).forEach((c, i) => named(c?.ports, `${p}/${i}/ports`, out, "port", portName));
    }
    if (k === "volumes") named(v, p, out, "volume", (s) => dnsLabel(s));
    walk(v, p, out);
  }
}

// A workload's selector must select its own pod template ("selector does not match template labels").
function selectorRule(spec, out) {
  const match = spec?.selector?.matchLabels;
  if (!match || !spec.template) return;
  const labels = spec.template.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(match)) {
    if (labels[k] !== v) {
      out.push({ pointer: `/spec/selector/matchLabels/${escapePointer(k)}`, message: "does not match the template's labels" });
    }
  }
}

function hpaRules(spec, pointer, out) {
  if (spec.minReplicas !== undefined && spec.minReplicas < 1) {
    out.push({ pointer: `${pointer}/minReplicas`, message: "must be at least 1 (0 needs the alpha HPAScaleToZero gate)" });
  }
  if (spec.maxReplicas < (spec.minReplicas ?? 1)) {
    out.push({ pointer: `${pointer}/maxReplicas`, message: "must be at least minReplicas" });
  }
  if (spec.behavior) behaviorRules(spec.behavior, `${pointer}/behavior`, out);
}

function behaviorRules(behavior, pointer, out) {
  for (const dir of ["scaleUp", "scaleDown"]) {
    const rules = behavior[dir];
    if (!rules) continue;
    const w = rules.stabilizationWindowSeconds;
    if (w !== undefined && !(w >= 0 && w <= 3600)) {
      out.push({ pointer: `${pointer}/${dir}/stabilizationWindowSeconds`, message: `${w} is outside 0..3600` });
    }
    (rules.policies ?? []).forEach((pol, i) => {
      if (!(pol.periodSeconds > 0 && pol.periodSeconds <= 1800)) {
        out.push({ pointer: `${pointer}/${dir}/policies/${i}/periodSeconds`, message: `${pol.periodSeconds} is outside 1..1800` });
      }
    });
  }
}
