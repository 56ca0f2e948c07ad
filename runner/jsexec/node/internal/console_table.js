// console.table's rendering, as Node 20 draws it: a box-drawn table of
// left-aligned cells with an (index) column, a column per property, and
// Values for primitive rows. The module is a function returning
// console.log's arguments.
"use strict";
const { inspect, types } = require("util");

const chars = {
  middleMiddle: "─", rowMiddle: "┼", topRight: "┐", topLeft: "┌", leftMiddle: "├", topMiddle: "┬", bottomRight: "┘",
  bottomLeft: "└", bottomMiddle: "┴", rightMiddle: "┤", left: "│ ", right: " │", middle: " │ ",
};

// width counts East Asian wide characters and emoji as two columns.
function width(s) {
  let w = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (c < 0x20 || (c >= 0x300 && c <= 0x36f) || c === 0x200b) continue;
    const wide = (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf && c !== 0x303f) ||
      (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) ||
      (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
      (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd);
    w += wide ? 2 : 1;
  }
  return w;
}

function renderRow(row, widths) {
  let out = chars.left;
  for (let i = 0; i < row.length; i++) {
    out += row[i] + " ".repeat(widths[i] - width(row[i]));
    if (i !== row.length - 1) out += chars.middle;
  }
  return out + chars.right;
}

function render(head, columns) {
  const rows = [];
  const widths = head.map(width);
  const longest = Math.max(...columns.map((c) => c.length));
  for (let i = 0; i < head.length; i++) {
    for (let j = 0; j < longest; j++) {
      if (rows[j] === undefined) rows[j] = [];
      const value = (rows[j][i] = Object.prototype.hasOwnProperty.call(columns[i], j) ? columns[i][j] : "");
      widths[i] = Math.max(widths[i] || 0, width(value));
    }
  }
  const divider = widths.map((w) => chars.middleMiddle.repeat(w + 2));
  let out = chars.topLeft + divider.join(chars.topMiddle) + chars.topRight + "\n" + renderRow(head, widths) + "\n" +
    chars.leftMiddle + divider.join(chars.rowMiddle) + chars.rightMiddle + "\n";
  for (const row of rows) out += renderRow(row, widths) + "\n";
  return out + chars.bottomLeft + divider.join(chars.bottomMiddle) + chars.bottomRight;
}

const cell = (v) => {
  const depth = v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 2 ? -1 : 0;
  return inspect(v, { depth, maxArrayLength: 3, breakLength: Infinity });
};
const indexes = (n) => Array.from({ length: n }, (_, i) => cell(i));

module.exports = function table(data, properties) {
  if (properties !== undefined && !Array.isArray(properties)) {
    throw require("internal/errors").invalidArgType("properties", "an instance of Array", properties);
  }
  if (data === null || typeof data !== "object") return [data];
  if (types.isMap(data) || types.isMapIterator(data)) {
    const keys = [], values = [];
    for (const [k, v] of types.isMap(data) ? data : Array.from(data)) { keys.push(cell(k)); values.push(cell(v)); }
    return [render(["(iteration index)", "Key", "Values"], [indexes(keys.length), keys, values])];
  }
  if (types.isSet(data) || types.isSetIterator(data)) {
    const values = Array.from(data, cell);
    return [render(["(iteration index)", "Values"], [indexes(values.length), values])];
  }
  const map = Object.create(null);
  const valuesColumn = [];
  let hasPrimitives = false;
  const indexKeys = Object.keys(data);
  indexKeys.forEach((index, i) => {
    const item = data[index];
    const primitive = item === null || (typeof item !== "function" && typeof item !== "object");
    if (properties === undefined && primitive) {
      hasPrimitives = true;
      valuesColumn[i] = cell(item);
      return;
    }
    for (const key of properties || Object.keys(item)) {
      if (!map[key]) map[key] = [];
      map[key][i] = (primitive && properties) || !Object.prototype.hasOwnProperty.call(item, key) ? "" : cell(item[key]);
    }
  });
  const head = Object.keys(map), columns = Object.values(map);
  if (hasPrimitives) { head.push("Values"); columns.push(valuesColumn); }
  head.unshift("(index)");
  columns.unshift(indexKeys);
  return [render(head, columns)];
};
