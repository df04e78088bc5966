// Tiny pi extension used only by the fixture generator: exposes pi's own in-file tree navigation
// (AgentSession.navigateTree, the same code path as /tree in the TUI) as a command, because the
// RPC protocol has no navigate command (its `fork` writes a new file).
//
//   /navtree <entryId> [summarize] [label=<text>]
//   /setlabel <entryId> [label]         -> pi.setLabel (a `label` entry)
//   /customentry <customType> <json>    -> pi.appendEntry (a `custom` entry, never in context)
//   /custommsg <customType> <text>      -> pi.sendMessage (a `custom_message` entry, in context)
export default function (pi) {
	pi.registerCommand("navtree", {
		description: "Navigate the session tree to an entry (fixture generator helper)",
		handler: async (args, ctx) => {
			const parts = args.trim().split(/\s+/);
			const id = parts[0];
			const summarize = parts.includes("summarize");
			const labelArg = parts.find((p) => p.startsWith("label="));
			const options = { summarize };
			if (labelArg) options.label = labelArg.slice("label=".length);
			await ctx.navigateTree(id, options);
		},
	});
	pi.registerCommand("setlabel", {
		description: "Set a label on an entry (fixture generator helper)",
		handler: async (args) => {
			const [id, ...rest] = args.trim().split(/\s+/);
			pi.setLabel(id, rest.join(" ") || undefined);
		},
	});
	pi.registerCommand("customentry", {
		description: "Append a custom entry (fixture generator helper)",
		handler: async (args) => {
			const m = args.trim().match(/^(\S+)\s+([\s\S]*)$/);
			pi.appendEntry(m[1], JSON.parse(m[2]));
		},
	});
	pi.registerCommand("custommsg", {
		description: "Send a custom message into the context (fixture generator helper)",
		handler: async (args) => {
			const m = args.trim().match(/^(\S+)\s+([\s\S]*)$/);
			await pi.sendMessage({ customType: m[1], content: m[2], display: true, details: { source: "generator" } });
		},
	});
}
