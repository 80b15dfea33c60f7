// Preloaded into `mimic host` (NODE_OPTIONS=--require ./localhost-only.cjs) by
// scripts/mimic_stack.py: every TCP server that would listen on all interfaces (Mimic's MCP
// servers call listen(port); its mock API calls listen({port, host: "0.0.0.0"})) listens on
// 127.0.0.1 instead. Unix sockets and explicit loopback binds are left alone.
"use strict";
const net = require("net");

const LOOPBACK = "127.0.0.1";
const ANY = new Set([undefined, null, "", "0.0.0.0", "::", "::0"]);
const original = net.Server.prototype.listen;

net.Server.prototype.listen = function listen(...args) {
  const first = args[0];
  if (first !== null && typeof first === "object" && !Array.isArray(first)) {
    if (first.path === undefined && first.handle === undefined && first.fd === undefined) {
      if (ANY.has(first.host)) args[0] = { ...first, host: LOOPBACK };
    }
  } else if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    const second = args[1];
    if (typeof second === "function" || second === undefined) {
      args.splice(1, 0, LOOPBACK);
    } else if (typeof second === "string" && ANY.has(second)) {
      args[1] = LOOPBACK;
    } else if (typeof second === "number") {
      args.splice(1, 0, LOOPBACK); // listen(port, backlog, cb)
    }
  }
  return original.apply(this, args);
};
