// Splits the POSIX shell text rightsize emits into simple commands (argv arrays). Not a shell: it
// knows what the launch scripts and the `sh -c` container args use — comments, backslash-newline,
// single and double quotes, `$(...)` and `${...}` kept inside a word, here documents skipped, and the
// separators `&&`, `||`, `;`, `|` and newline, file redirections dropped. Anything else it does not understand is an error, so a
// construct the checker cannot read fails instead of hiding a command.

const SEPARATORS = ["&&", "||", ";", "|", "\n"];

// Returns { commands: string[][], errors: string[] }.
export function shellCommands(text) {
  const errors = [];
  const body = dropHereDocuments(text.replace(/\\\n/g, ""), errors);
  const commands = [];
  let words = [];
  let i = 0;
  while (i < body.length) {
    const c = body[i];
    if (c === " " || c === "\t") { i++; continue; }
    const sep = SEPARATORS.find((s) => body.startsWith(s, i));
    if (sep) {
      if (words.length) commands.push(words);
      words = [];
      i += sep.length;
      continue;
    }
    if (c === "#") { i = skipComment(body, i); continue; }
    if (c === ">" || c === "<") { i = skipRedirection(body, i, errors); continue; }
    const { word, end, error } = readWord(body, i);
    if (error) { errors.push(error); break; }
    words.push(word);
    i = end;
  }
  if (words.length) commands.push(words);
  return { commands, errors };
}

// A file redirection (`> file`, `>> file`, `< file`) is not part of the command's argv.
function skipRedirection(body, i, errors) {
  i += body.startsWith(">>", i) ? 2 : 1;
  while (body[i] === " " || body[i] === "\t") i++;
  const { end, error } = readWord(body, i);
  if (error) errors.push(error);
  return error ? body.length : end;
}

function skipComment(body, i) {
  const nl = body.indexOf("\n", i);
  return nl < 0 ? body.length : nl;
}

// Removes the lines of each here document (`<<'EOF'` or `<<EOF` up to a line `EOF`) and the
// redirection itself; the command line that opens it stays.
function dropHereDocuments(text, errors) {
  const lines = text.split("\n");
  const out = [];
  for (let n = 0; n < lines.length; n++) {
    const m = lines[n].match(/<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/);
    if (!m) { out.push(lines[n]); continue; }
    out.push(lines[n].slice(0, m.index));
    const end = lines.findIndex((l, k) => k > n && l === m[2]);
    if (end < 0) { errors.push(`here document ${m[2]} is never closed`); return out.join("\n"); }
    n = end;
  }
  return out.join("\n");
}

function readWord(s, start) {
  let word = "";
  let i = start;
  while (i < s.length) {
    const c = s[i];
    if (" \t\n;&|".includes(c)) break;
    if (c === "<" || c === ">") break;
    if (c === "'") {
      const close = s.indexOf("'", i + 1);
      if (close < 0) return { error: "unterminated single quote" };
      word += s.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      const r = readDoubleQuoted(s, i + 1);
      if (r.error) return r;
      word += r.text;
      i = r.end;
    } else if (c === "\\") {
      word += s[i + 1] ?? "";
      i += 2;
    } else if (c === "$" && (s[i + 1] === "(" || s[i + 1] === "{")) {
      const end = matching(s, i + 1);
      if (end < 0) return { error: "unterminated $( or ${" };
      word += s.slice(i, end + 1);
      i = end + 1;
    } else if (c === "(" || c === ")" || c === "`") {
      return { error: `'${c}' at offset ${i} is not supported here` };
    } else {
      word += c;
      i++;
    }
  }
  return { word, end: i };
}

function readDoubleQuoted(s, i) {
  let text = "";
  while (i < s.length && s[i] !== '"') {
    if (s[i] === "\\" && '"\\$`'.includes(s[i + 1])) {
      text += s[i + 1];
      i += 2;
    } else {
      text += s[i];
      i++;
    }
  }
  if (i >= s.length) return { error: "unterminated double quote" };
  return { text, end: i + 1 };
}

// Index of the bracket closing the one at `open` ('(' or '{').
function matching(s, open) {
  const close = s[open] === "(" ? ")" : "}";
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === s[open]) depth++;
    else if (s[i] === close && --depth === 0) return i;
  }
  return -1;
}
