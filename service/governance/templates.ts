/**
 * Starting policy files for `ghostlight policy init`: commented, valid as written (a test reads
 * each one), each a different first step.
 *
 * @module
 */

const HEADER = `// Ghostlight policy. Comments and trailing commas are allowed.
// The service reads this file again when it changes; a broken edit leaves the previous policy
// in force ('ghostlight status' says what is wrong). 'ghostlight policy explain' says what a
// policy allows, in words.
//
// Capabilities: "read" (look at pages; also what navigate needs, of the page it opens),
// "action" (click, type, keys, navigate-like effects), "write" (fill forms, upload),
// "execute" (run JavaScript in the page).
// Hosts: "example.com" (exactly), "*.example.com" (its subdomains), "*" (any page).
// Principals: who a connector was started for, as 'ghostlight status' shows it, or "*".
// "ask": the person is asked first ('ghostlight asks', the popup, or the client itself).
// A deny always wins over an ask, and an ask over an allow. Sacred sites (banks, sign-in pages) are never touched,
// whatever this file says; "sacred" adds your own.
`;

/** The templates by name; the first is the default. */
export const TEMPLATES: Record<string, { about: string; text: string }> = {
  "read-only": {
    about: "agents may read any page, and do nothing else",
    text: `${HEADER}{
  "mode": "enforce",
  "default": "deny",
  "grants": [
    // Reading is allowed everywhere; clicking, typing, filling and scripts are not.
    { "hosts": ["*"], "allow": ["read"] },
  ],
  "sacred": [],
}
`,
  },
  "allowlist": {
    about: "agents work only on the sites you list",
    text: `${HEADER}{
  "mode": "enforce",
  "default": "deny",
  "grants": [
    // Replace these with the sites your agents may work on.
    { "hosts": ["localhost", "127.0.0.1"], "allow": ["read", "action", "write", "execute"] },
    { "hosts": ["*.example.com"], "allow": ["read", "action", "write"] },
    // One client (the principal install gave its entry) may be kept to reading, even here:
    // { "principals": ["cursor"], "hosts": ["*"], "deny": ["action", "write", "execute"] },
  ],
  "sacred": [],
}
`,
  },
  "observe": {
    about: "nothing is refused; what a read-only policy would refuse is recorded in the audit",
    text: `${HEADER}{
  // Observe mode: calls are let through, and the audit records each one this policy would
  // have refused ('ghostlight audit tail'). Switch to "enforce" once it looks right.
  "mode": "observe",
  "default": "deny",
  "grants": [
    { "hosts": ["*"], "allow": ["read"] },
  ],
  "sacred": [],
}
`,
  },
  "ask-first": {
    about: "agents may read any page; acting, filling and scripts wait for your yes on each site",
    text: `${HEADER}{
  "mode": "enforce",
  // Anything no grant names is asked: the agent's call waits for your answer ('ghostlight
  // asks', the popup, or your MCP client), and is refused if you do not answer in time.
  // "Allow on this site for this agent" is remembered until the agent's workspace ends.
  "default": "ask",
  "grants": [
    { "hosts": ["*"], "allow": ["read"] },
    // A site you trust needs no question: name it here.
    // { "hosts": ["*.example.com"], "allow": ["action", "write"] },
  ],
  "sacred": [],
}
`,
  },
  "open": {
    about: "everything allowed but page scripts, and your own sacred sites",
    text: `${HEADER}{
  "mode": "enforce",
  "default": "allow",
  "grants": [
    // Everything is allowed except running JavaScript in pages.
    { "hosts": ["*"], "deny": ["execute"] },
  ],
  // Sites never to be touched, on top of the built-in list (each with its subdomains).
  "sacred": ["mybank.example"],
}
`,
  },
};

/** The template `policy init` writes when none is named. */
export const DEFAULT_TEMPLATE = "read-only";
