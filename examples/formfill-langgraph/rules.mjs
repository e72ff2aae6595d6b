// The deterministic stand-ins for seed 002's LLM calls and classifiers:
// the rules of scenarios/formfill/nlu.yaml, applied as simctl's stub NLU
// applies them (sim/nlu.go), and the field validators of the document's
// "Validaciones soportadas" table as simctl implements them
// (engine/validator.go). The two must stay equal: `make bot-check` is what
// tells when they do not.

// nlu.yaml, in file order. Confidence: the file's 0.9 unless a rule says.
const RULES = [
  { intent: 'sentimiento_negativo', confidence: 0.9,
    keywords: ['odio', 'horrible', 'harto', 'harta', 'pésimo', 'pésima', 'inútil', 'basura'] },
  { intent: 'request_human', confidence: 0.85,
    patterns: ['hablar con alguien', 'alguien de (soporte|verdad|atención)', 'atención al cliente', 'me atienda alguien'] },
  { intent: 'corregir', confidence: 0.9,
    patterns: ['^\\s*no\\s*,', '\\ben realidad\\b', 'd[eé]jame corregir', '\\beso est[aá] mal'],
    keywords: ['me equivoqué', 'me confundí', 'quise decir'] },
  { intent: 'fuera_de_tema', confidence: 0.8,
    exact: ['hola', 'hey', 'buenos días', 'buenas tardes', 'buenas noches', '¡hola!', 'hola!'],
    patterns: ['\\bclima\\b', 'tengo otra pregunta'],
    keywords: ['partido', 'fútbol', 'chiste', 'receta'] },
];
const FALLBACK = { intent: 'informar', confidence: 0.6 };

// Entities: synonyms (the canonical value is a synonym of itself) or a
// pattern whose first group is the value.
const ENTITIES = [
  { name: 'campo', values: [
    ['nombre', ['llamo']],
    ['email', ['correo', 'e-mail', 'mail']],
    ['telefono', ['teléfono', 'móvil', 'celular']],
    ['sitio_web', ['web', 'url', 'página', 'sitio']],
    ['presupuesto', ['importe']],
    ['codigo_postal', ['código postal', 'codigo postal', 'cp']],
  ] },
  { name: 'valor', pattern: '(?:\\bes|\\bser)\\s+(\\S.*?)\\s*$' },
  { name: 'extraccion', values: [
    ['NOT_PROVIDED', ['prefiero no decirlo', 'no lo sé', 'no quiero decirlo']],
    ['INVALID', ['asdf', 'bla bla']],
  ] },
];

// Go's regexp \s is [\t\n\f\r ]; JavaScript's is Unicode white space.
const goRe = (p, flags) => new RegExp(p.replaceAll('\\s', '[\\t\\n\\f\\r ]').replaceAll('\\S', '[^\\t\\n\\f\\r ]'), flags);

const exact = new Map();
const rules = RULES.map((r) => ({
  ...r,
  keywords: (r.keywords ?? []).map((k) => k.toLowerCase()),
  compiled: (r.patterns ?? []).map((p) => goRe(p, 'i')),
}));
rules.forEach((r, i) => (r.exact ?? []).forEach((e) => { if (!exact.has(e.toLowerCase())) exact.set(e.toLowerCase(), i); }));
const entities = ENTITIES.map((e) => ({
  name: e.name,
  re: e.pattern ? goRe(e.pattern, 'i') : null,
  synonyms: (e.values ?? []).flatMap(([v, syns]) => [[v.toLowerCase(), v], ...syns.map((s) => [s.toLowerCase(), v])]),
}));

const isWordChar = (ch) => ch !== undefined && /[\p{L}\p{Nd}_]/u.test(ch);

// wordIndex: where w occurs in text with no letter, digit or underscore
// on either side, or -1.
function wordIndex(text, w) {
  for (let from = 0; ;) {
    const i = text.indexOf(w, from);
    if (i < 0) return -1;
    const before = [...text.slice(0, i)].pop();
    const after = [...text.slice(i + w.length)][0];
    if (!isWordChar(before) && !isWordChar(after)) return i;
    from = i + 1;
  }
}

// Go's strings.TrimSpace.
export const trim = (s) => s.replace(/^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g, '');

// parse returns {intent, confidence, entities} for a message.
export function parse(text) {
  const trimmed = trim(text);
  const lower = trimmed.toLowerCase();
  let rule = exact.has(lower) ? exact.get(lower) : -1;
  if (rule < 0) {
    rule = rules.findIndex((r) => r.keywords.some((k) => wordIndex(lower, k) >= 0) || r.compiled.some((re) => re.test(trimmed)));
  }
  const found = {};
  for (const e of entities) {
    if (e.re) {
      const m = e.re.exec(trimmed);
      if (m) found[e.name] = m[1] ?? '';
      continue;
    }
    const syn = e.synonyms.find(([s]) => wordIndex(lower, s) >= 0);
    if (syn) found[e.name] = syn[1];
  }
  const r = rule >= 0 ? rules[rule] : FALLBACK;
  return { intent: r.intent, confidence: r.confidence, entities: found };
}

// The escalation keywords, matched on the lower-cased message.
export const ESCALATION_KEYWORDS = /\b(humano|humana|agente|persona|operador|operadora)\b/;

const EMAIL = /^[A-Za-z0-9!#$%&'*+/=?^_{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_{|}~-]+)*@([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$/;

function phone(s) {
  let digits = 0;
  let i = 0;
  for (const ch of s) {
    if (ch >= '0' && ch <= '9') digits++;
    else if (!(ch === '+' && i === 0) && !' -.()'.includes(ch)) return false;
    i++;
  }
  return digits >= 7;
}

// Go's url.Parse as far as it matters here: a scheme (lower-cased), "//",
// an authority whose host (after any user info) is not empty, no white
// space, no control characters.
function url(s) {
  if (/[ \t\n]/.test(s) || /[\x00-\x1f\x7f]/.test(s)) return false;
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/.exec(s);
  if (!m || !['http', 'https'].includes(m[1].toLowerCase())) return false;
  const host = m[2].slice(m[2].lastIndexOf('@') + 1);
  const port = /:([^:\]]*)$/.exec(host);
  if (port && !/^[0-9]*$/.test(port[1])) return false;
  return host !== '';
}

// strconv.ParseFloat of the trimmed text, finite.
function number(s) {
  const t = trim(s);
  return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t) && Number.isFinite(Number(t));
}

export const VALIDATORS = {
  text: (s) => trim(s) !== '',
  email: (s) => EMAIL.test(s),
  phone,
  url,
  number,
};
