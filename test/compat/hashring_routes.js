#!/usr/bin/env node
// Route keys with the npm package hashring (3.2.0, installed by `npm ci` in
// this directory).
//
//   node hashring_routes.js SERVERS KEYS > ROUTES
//   node hashring_routes.js --config FILE KEYS > ROUTES
//
// SERVERS is TSV, one "name<TAB>weight" line per server in order; KEYS has
// one key a line.  ROUTES gets, for each key, ring.get(key) of a
// new HashRing({name: weight, ...}) with the defaults (md5, 40 vnodes,
// 4 replicas, no 'default port'): each point is hashed from the name as
// given ("10.0.0.1:11211-0"), port and all.  With --config, FILE is the
// JSON object of servers and weights (chash_export's format hashring),
// given to new HashRing as JSON.parse reads it.
'use strict';

const fs = require('fs');
const path = require('path');
const HashRing = require(path.join(__dirname, 'node_modules', 'hashring'));

function fail(message) {
  process.stderr.write('hashring_routes.js: ' + message + '\n');
  process.exit(2);
}

function lines(file) {
  const text = fs.readFileSync(file, 'utf8');
  const all = text.split('\n');
  if (all.length && all[all.length - 1] === '') all.pop();
  return all.map((l) => l.replace(/\r$/, ''));
}

let servers = {};
let keys = process.argv[3];
if (process.argv.length === 5 && process.argv[2] === '--config') {
  servers = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
  keys = process.argv[4];
  if (Object.keys(servers).length === 0) fail('no servers in ' + process.argv[3]);
} else {
  if (process.argv.length !== 4) fail('usage: hashring_routes.js {SERVERS | --config FILE} KEYS > ROUTES');
  const order = [];
  for (const line of lines(process.argv[2])) {
    if (line === '') continue;
    const fields = line.split('\t');
    if (fields.length !== 2 || !/^[1-9][0-9]*$/.test(fields[1])) fail('bad server line: ' + line);
    if (Object.prototype.hasOwnProperty.call(servers, fields[0])) fail('duplicate server ' + fields[0]);
    servers[fields[0]] = Number(fields[1]);
    order.push(fields[0]);
  }
  if (order.length === 0) fail('no servers');
  // The ring takes its servers in the object's key order, which is
  // insertion order except for integer-like names ("7", "42"), which
  // JavaScript puts first in numeric order: such a list has no order to
  // compare with.
  if (Object.keys(servers).join('\n') !== order.join('\n')) {
    fail('integer-like server names reorder a JavaScript object: ' + Object.keys(servers).join(','));
  }
}

const ring = new HashRing(servers);
const out = [];
for (const key of lines(keys)) {
  const server = ring.get(key);
  if (server === undefined) fail('no server for key ' + key);
  out.push(server, '\n');
}
process.stdout.write(out.join(''));
