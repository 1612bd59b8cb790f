/**
 * The tool contract: names, input schemas, annotations and the capability each action needs,
 * in advertised order. The rows marked `trained` keep their schemas exactly; a golden test
 * compares this file with the team's spec. Descriptions live in `descriptions.ts`.
 *
 * @module
 */

/** One row of the contract. */
export interface ContractRow {
  name: string;
  trained: boolean;
  inputSchema: Record<string, unknown>;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  capability: Record<string, Capability[]>;
}

/** What an action may do: observe, act, put data in, or run code. */
export type Capability = "read" | "action" | "write" | "execute";

/** All 25 tools in the order they are advertised. */
export const CONTRACT: readonly ContractRow[] = [
  {
    "name": "tabs_context_mcp",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {
        "createIfEmpty": {
          "type": "boolean",
        },
      },
      "required": [],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "List Ghostlight Tabs",
      "readOnlyHint": false,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "read",
      ],
    },
  },
  {
    "name": "tabs_create_mcp",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {},
      "required": [],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Create Ghostlight Tab",
      "readOnlyHint": false,
      "destructiveHint": false,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "*": [],
    },
  },
  {
    "name": "navigate",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {
        "url": {
          "type": "string",
        },
        "tabId": {
          "type": "number",
        },
        "force": {
          "type": "boolean",
        },
      },
      "required": [
        "url",
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Navigate",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "read",
      ],
    },
  },
  {
    "name": "computer",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {
        "action": {
          "type": "string",
          "enum": [
            "left_click",
            "right_click",
            "type",
            "screenshot",
            "wait",
            "scroll",
            "key",
            "left_click_drag",
            "double_click",
            "triple_click",
            "zoom",
            "scroll_to",
            "hover",
          ],
        },
        "tabId": {
          "type": "number",
        },
        "coordinate": {
          "type": "array",
          "items": {
            "type": "number",
          },
          "minItems": 2,
          "maxItems": 2,
        },
        "duration": {
          "type": "number",
          "minimum": 0,
          "maximum": 10,
        },
        "modifiers": {
          "type": "string",
        },
        "ref": {
          "type": "string",
        },
        "region": {
          "type": "array",
          "items": {
            "type": "number",
          },
          "minItems": 4,
          "maxItems": 4,
        },
        "repeat": {
          "type": "number",
          "minimum": 1,
          "maximum": 100,
        },
        "scroll_direction": {
          "type": "string",
          "enum": [
            "up",
            "down",
            "left",
            "right",
          ],
        },
        "scroll_amount": {
          "type": "number",
          "minimum": 1,
          "maximum": 10,
        },
        "start_coordinate": {
          "type": "array",
          "items": {
            "type": "number",
          },
          "minItems": 2,
          "maxItems": 2,
        },
        "text": {
          "type": "string",
        },
      },
      "required": [
        "action",
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Browser Input and Screenshots",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "left_click": [
        "action",
      ],
      "right_click": [
        "action",
      ],
      "type": [
        "action",
      ],
      "screenshot": [
        "read",
      ],
      "wait": [],
      "scroll": [
        "read",
      ],
      "key": [
        "action",
      ],
      "left_click_drag": [
        "action",
      ],
      "double_click": [
        "action",
      ],
      "triple_click": [
        "action",
      ],
      "zoom": [
        "read",
      ],
      "scroll_to": [
        "read",
      ],
      "hover": [
        "read",
      ],
    },
  },
  {
    "name": "find",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {
        "query": {
          "type": "string",
        },
        "tabId": {
          "type": "number",
        },
      },
      "required": [
        "query",
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Find Page Elements",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "read",
      ],
    },
  },
  {
    "name": "form_input",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {
        "ref": {
          "type": "string",
        },
        "value": {
          "type": [
            "string",
            "boolean",
            "number",
          ],
        },
        "tabId": {
          "type": "number",
        },
      },
      "required": [
        "ref",
        "value",
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Set Form Value",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "write",
      ],
    },
  },
  {
    "name": "get_page_text",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {
        "tabId": {
          "type": "number",
        },
        "max_chars": {
          "type": "number",
        },
      },
      "required": [
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Read Page Text",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "read",
      ],
    },
  },
  {
    "name": "javascript_tool",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {
        "action": {
          "type": "string",
        },
        "text": {
          "type": "string",
        },
        "tabId": {
          "type": "number",
        },
      },
      "required": [
        "action",
        "text",
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Run Page JavaScript",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "execute",
      ],
    },
  },
  {
    "name": "read_console_messages",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {
        "tabId": {
          "type": "number",
        },
        "pattern": {
          "type": "string",
        },
        "limit": {
          "type": "number",
        },
        "onlyErrors": {
          "type": "boolean",
        },
        "clear": {
          "type": "boolean",
        },
      },
      "required": [
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Read Console Messages",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "read",
      ],
    },
  },
  {
    "name": "read_network_requests",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {
        "tabId": {
          "type": "number",
        },
        "urlPattern": {
          "type": "string",
        },
        "limit": {
          "type": "number",
        },
        "clear": {
          "type": "boolean",
        },
      },
      "required": [
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Read Network Requests",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "read",
      ],
    },
  },
  {
    "name": "read_page",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {
        "tabId": {
          "type": "number",
        },
        "filter": {
          "type": "string",
          "enum": [
            "interactive",
            "all",
          ],
        },
        "depth": {
          "type": "number",
        },
        "ref_id": {
          "type": "string",
        },
        "max_chars": {
          "type": "number",
        },
        "diff": {
          "type": "boolean",
        },
      },
      "required": [
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Read Page Structure",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "read",
      ],
    },
  },
  {
    "name": "resize_window",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {
        "width": {
          "type": "number",
        },
        "height": {
          "type": "number",
        },
        "tabId": {
          "type": "number",
        },
      },
      "required": [
        "width",
        "height",
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Resize Browser Window",
      "readOnlyHint": false,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false,
    },
    "capability": {
      "*": [],
    },
  },
  {
    "name": "update_plan",
    "trained": true,
    "inputSchema": {
      "type": "object",
      "properties": {
        "domains": {
          "type": "array",
          "items": {
            "type": "string",
          },
        },
        "approach": {
          "type": "array",
          "items": {
            "type": "string",
          },
        },
      },
      "required": [
        "domains",
        "approach",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Report Browser Plan",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false,
    },
    "capability": {
      "*": [],
    },
  },
  {
    "name": "narrate",
    "trained": false,
    "inputSchema": {
      "type": "object",
      "properties": {
        "tabId": {
          "type": "number",
        },
        "text": {
          "type": "string",
          "minLength": 1,
          "maxLength": 240,
        },
        "position": {
          "type": "string",
          "enum": [
            "auto",
            "top",
            "bottom",
          ],
          "default": "auto",
        },
        "duration_ms": {
          "type": "integer",
          "minimum": 1000,
          "maximum": 30000,
          "default": 5000,
        },
      },
      "required": [
        "tabId",
        "text",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Narrate Browser Work",
      "readOnlyHint": false,
      "destructiveHint": false,
      "idempotentHint": false,
      "openWorldHint": false,
    },
    "capability": {
      "*": [],
    },
  },
  {
    "name": "wait_for",
    "trained": false,
    "inputSchema": {
      "type": "object",
      "properties": {
        "tabId": {
          "type": "number",
        },
        "selector": {
          "type": "string",
        },
        "text": {
          "type": "string",
        },
        "state": {
          "type": "string",
          "enum": [
            "visible",
            "present",
            "gone",
            "settled",
          ],
        },
        "timeout_ms": {
          "type": "number",
        },
        "min_ms": {
          "type": "number",
        },
        "settle": {
          "type": "boolean",
        },
      },
      "required": [
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Wait for Page State",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "read",
      ],
    },
  },
  {
    "name": "script",
    "trained": false,
    "inputSchema": {
      "type": "object",
      "properties": {
        "tabId": {
          "type": "number",
        },
        "steps": {
          "type": "array",
          "minItems": 1,
          "maxItems": 20,
          "items": {
            "type": "object",
            "properties": {
              "tool": {
                "type": "string",
              },
              "args": {
                "type": "object",
              },
            },
            "required": [
              "tool",
            ],
            "additionalProperties": false,
          },
        },
        "onError": {
          "type": "string",
          "enum": [
            "stop",
            "continue",
          ],
        },
        "dry_run": {
          "type": "boolean",
        },
        "budget_ms": {
          "type": "number",
        },
      },
      "required": [
        "steps",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Run Dependent Browser Steps",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "*": [],
    },
  },
  {
    "name": "form_fill",
    "trained": false,
    "inputSchema": {
      "type": "object",
      "properties": {
        "tabId": {
          "type": "number",
        },
        "fields": {
          "type": "object",
          "minProperties": 1,
          "additionalProperties": {
            "type": [
              "string",
              "boolean",
              "number",
            ],
          },
        },
        "submit": {
          "type": "boolean",
        },
      },
      "required": [
        "tabId",
        "fields",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Fill Form",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "read",
        "write",
      ],
      "submit": [
        "read",
        "write",
        "action",
      ],
    },
  },
  {
    "name": "act_on",
    "trained": false,
    "inputSchema": {
      "type": "object",
      "properties": {
        "tabId": {
          "type": "number",
        },
        "target": {
          "type": "object",
          "properties": {
            "ref": {
              "type": "string",
            },
            "query": {
              "type": "string",
            },
            "name": {
              "type": "string",
            },
            "role": {
              "type": "string",
            },
          },
          "additionalProperties": false,
        },
        "action": {
          "type": "string",
          "enum": [
            "left_click",
            "right_click",
            "double_click",
            "hover",
            "scroll_to",
            "set_value",
          ],
        },
        "value": {
          "type": "string",
        },
        "expect": {
          "type": "object",
          "properties": {
            "selector": {
              "type": "string",
            },
            "text": {
              "type": "string",
            },
            "state": {
              "type": "string",
              "enum": [
                "visible",
                "present",
                "gone",
              ],
            },
            "timeout_ms": {
              "type": "number",
              "minimum": 0,
              "maximum": 30000,
            },
          },
          "additionalProperties": false,
        },
      },
      "required": [
        "tabId",
        "target",
        "action",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Act on Page Element",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "left_click": [
        "action",
      ],
      "right_click": [
        "action",
      ],
      "double_click": [
        "action",
      ],
      "hover": [
        "read",
      ],
      "scroll_to": [
        "read",
      ],
      "set_value": [
        "write",
      ],
    },
  },
  {
    "name": "dialog",
    "trained": false,
    "inputSchema": {
      "type": "object",
      "properties": {
        "tabId": {
          "type": "number",
        },
        "action": {
          "type": "string",
          "enum": [
            "status",
            "accept",
            "dismiss",
            "respond",
          ],
        },
        "text": {
          "type": "string",
        },
      },
      "required": [
        "tabId",
        "action",
      ],
      "allOf": [
        {
          "if": {
            "properties": {
              "action": {
                "const": "respond",
              },
            },
            "required": [
              "action",
            ],
          },
          "then": {
            "required": [
              "text",
            ],
          },
          "else": {
            "not": {
              "required": [
                "text",
              ],
            },
          },
        },
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Handle Page Dialog",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "status": [
        "read",
      ],
      "accept": [
        "action",
      ],
      "dismiss": [
        "action",
      ],
      "respond": [
        "action",
      ],
    },
  },
  {
    "name": "tab_control",
    "trained": false,
    "inputSchema": {
      "type": "object",
      "properties": {
        "tabId": {
          "type": "number",
        },
        "action": {
          "type": "string",
          "enum": [
            "focus",
            "reload",
            "close",
          ],
        },
      },
      "required": [
        "tabId",
        "action",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Control Ghostlight Tab",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "focus": [],
      "reload": [
        "action",
      ],
      "close": [
        "action",
      ],
    },
  },
  {
    "name": "file_upload",
    "trained": false,
    "inputSchema": {
      "type": "object",
      "properties": {
        "files": {
          "type": "array",
          "items": {
            "type": "object",
            "properties": {
              "data": {
                "type": "string",
              },
              "name": {
                "type": "string",
              },
              "mimeType": {
                "type": "string",
              },
            },
            "required": [
              "data",
              "name",
            ],
          },
        },
        "paths": {
          "type": "array",
          "items": {
            "type": "string",
          },
        },
        "ref": {
          "type": "string",
        },
        "tabId": {
          "type": "number",
        },
      },
      "required": [
        "ref",
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Upload Files",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "write",
      ],
    },
  },
  {
    "name": "browser_batch",
    "trained": false,
    "inputSchema": {
      "type": "object",
      "properties": {
        "actions": {
          "type": "array",
          "minItems": 1,
          "items": {
            "type": "object",
            "properties": {
              "name": {
                "type": "string",
              },
              "input": {
                "type": "object",
              },
            },
            "required": [
              "name",
              "input",
            ],
          },
        },
      },
      "required": [
        "actions",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Run Browser Batch",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "*": [],
    },
  },
  {
    "name": "upload_image",
    "trained": false,
    "inputSchema": {
      "type": "object",
      "properties": {
        "imageId": {
          "type": "string",
        },
        "ref": {
          "type": "string",
        },
        "coordinate": {
          "type": "array",
        },
        "tabId": {
          "type": "number",
        },
        "filename": {
          "type": "string",
        },
      },
      "required": [
        "imageId",
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Upload Captured Image",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "*": [
        "write",
      ],
    },
  },
  {
    "name": "gif_creator",
    "trained": false,
    "inputSchema": {
      "type": "object",
      "properties": {
        "action": {
          "type": "string",
          "enum": [
            "start_recording",
            "stop_recording",
            "status",
            "clear",
            "export",
          ],
        },
        "tabId": {
          "type": "number",
        },
        "coordinate": {
          "type": "array",
        },
        "ref": {
          "type": "string",
        },
        "download": {
          "type": "boolean",
        },
        "filename": {
          "type": "string",
        },
        "options": {
          "type": "object",
        },
      },
      "required": [
        "action",
        "tabId",
      ],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Record Browser GIF",
      "readOnlyHint": false,
      "destructiveHint": true,
      "idempotentHint": false,
      "openWorldHint": true,
    },
    "capability": {
      "start_recording": [
        "read",
      ],
      "stop_recording": [],
      "status": [],
      "clear": [],
      "export": [
        "read",
      ],
    },
  },
  {
    "name": "explain",
    "trained": false,
    "inputSchema": {
      "type": "object",
      "properties": {},
      "required": [],
      "additionalProperties": false,
    },
    "annotations": {
      "title": "Explain Browser Permissions",
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false,
    },
    "capability": {
      "*": [],
    },
  },
];
