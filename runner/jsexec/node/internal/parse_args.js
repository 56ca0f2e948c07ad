// util.parseArgs: Node's command-line option parser (long and short
// options, groups, inline values, defaults, multiple, tokens, strict
// errors).
"use strict";
const { invalidArgType, invalidArgValue, withCode } = require("internal/errors");

function parseError(code, msg) {
  return withCode(new TypeError(msg), code);
}

function parseArgs(config = {}) {
  const p = globalThis.process;
  const args = config.args !== undefined ? config.args : p && Array.isArray(p.argv) ? p.argv.slice(2) : [];
  const strict = config.strict !== undefined ? !!config.strict : true;
  const allowPositionals = config.allowPositionals !== undefined ? !!config.allowPositionals : !strict;
  const options = config.options || {};
  const returnTokens = !!config.tokens;
  if (!Array.isArray(args)) throw invalidArgType("args", "an instance of Array", args);
  const shortToLong = Object.create(null);
  for (const [name, o] of Object.entries(options)) {
    if (o === null || typeof o !== "object") throw invalidArgType(`options.${name}`, "of type object", o);
    if (o.type !== "string" && o.type !== "boolean") {
      throw invalidArgValue(`options.${name}.type`, o.type, "must be one of: 'string', 'boolean'");
    }
    if (o.short !== undefined) {
      if (typeof o.short !== "string" || o.short.length !== 1) {
        throw invalidArgValue(`options.${name}.short`, o.short, "must be a single character");
      }
      shortToLong[o.short] = name;
    }
  }
  const optionFor = (name) => (Object.prototype.hasOwnProperty.call(options, name) ? options[name] : undefined);
  const display = (name, short) => (short ? `-${short}, --${name}` : `--${name}`);

  // Tokenize.
  const tokens = [];
  let i = 0;
  while (i < args.length) {
    const arg = String(args[i]);
    const index = i++;
    if (arg === "--") {
      tokens.push({ kind: "option-terminator", index });
      for (; i < args.length; i++) tokens.push({ kind: "positional", index: i, value: String(args[i]) });
      break;
    }
    if (arg.length > 1 && arg[0] === "-" && arg[1] !== "-") {
      const letters = arg.slice(1);
      for (let j = 0; j < letters.length; j++) {
        const short = letters[j];
        const name = shortToLong[short] || short;
        const o = optionFor(name);
        if (o && o.type === "string") {
          let value = letters.slice(j + 1), inlineValue = true;
          if (value === "") {
            inlineValue = false;
            value = i < args.length && !(strict && String(args[i]).startsWith("-")) ? String(args[i++]) : undefined;
          }
          tokens.push({ kind: "option", name, rawName: `-${short}`, index, value, inlineValue });
          break;
        }
        tokens.push({ kind: "option", name, rawName: `-${short}`, index, value: undefined, inlineValue: undefined });
      }
      continue;
    }
    if (arg.startsWith("--") && arg.length > 2) {
      const eq = arg.indexOf("=");
      if (eq >= 0) {
        tokens.push({ kind: "option", name: arg.slice(2, eq), rawName: arg.slice(0, eq), index, value: arg.slice(eq + 1), inlineValue: true });
        continue;
      }
      const name = arg.slice(2);
      const o = optionFor(name);
      let value, inlineValue;
      if (o && o.type === "string") {
        inlineValue = false;
        value = i < args.length && !(strict && String(args[i]).startsWith("-")) ? String(args[i++]) : undefined;
      }
      tokens.push({ kind: "option", name, rawName: arg, index, value, inlineValue });
      continue;
    }
    tokens.push({ kind: "positional", index, value: arg });
  }

  const values = Object.create(null), positionals = [];
  for (const t of tokens) {
    if (t.kind === "positional") {
      if (!allowPositionals) {
        throw parseError("ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL", `Unexpected argument '${t.value}'. This command does not take positional arguments`);
      }
      positionals.push(t.value);
      continue;
    }
    if (t.kind !== "option") continue;
    const o = optionFor(t.name);
    if (strict) {
      if (!o) {
        const hint = allowPositionals ? ". To specify a positional argument starting with a '-', place it at the end of the " +
          `command after '--', as in '-- ${JSON.stringify(t.rawName)}` : "";
        throw parseError("ERR_PARSE_ARGS_UNKNOWN_OPTION", `Unknown option '${t.rawName}'${hint}`);
      }
      if (o.type === "string" && t.value === undefined) {
        throw parseError("ERR_PARSE_ARGS_INVALID_OPTION_VALUE", `Option '${display(t.name, o.short)} <value>' argument missing`);
      }
      if (o.type === "boolean" && t.value !== undefined) {
        throw parseError("ERR_PARSE_ARGS_INVALID_OPTION_VALUE", `Option '${display(t.name, o.short)}' does not take an argument`);
      }
    }
    const value = t.value === undefined ? true : t.value;
    if (o && o.multiple) (values[t.name] = values[t.name] || []).push(value);
    else values[t.name] = value;
  }
  for (const [name, o] of Object.entries(options)) {
    if (o.default !== undefined && values[name] === undefined) values[name] = o.default;
  }
  const result = { values, positionals };
  if (returnTokens) result.tokens = tokens;
  return result;
}

module.exports = { parseArgs };
