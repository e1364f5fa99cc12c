package finding

// ruleFixes says how to fix what each rule finds, for the SARIF rules'
// help (code scanning shows it beside the alert).
var ruleFixes = map[string]string{
	ParseError:               "Fix the file or row at the position given: the YAML or JSON syntax, the import, the path, or the field's type as Flow's model wants it.",
	InvalidSyncSchedule:      "Correct the syncSchedule as the message says: a duration such as 1h, a timezone such as America/New_York or +05:30, windows with HH:MM start and end.",
	RequiresRuntimeV2:        "Set shards.flags.enable-runtime-v2: \"true\" (a quoted string) on the task, or remove its syncSchedule.",
	InvalidShardFlag:         "Quote the flag's value (enable-runtime-v2: \"true\") and make shards.flags an object of strings.",
	SyncScheduleConflict:     "Keep one schedule: migrate moves the connector's into the materialization's syncSchedule and sets the connector's to {syncFrequency: \"0s\"}.",
	InvalidConnectorSchedule: "Correct the connector's schedule as its own validation message says, or move it to the materialization's syncSchedule (schedtool migrate).",
	AckDelayStacks:           "Turn the connector's own delay off (syncFrequency \"0s\") so that only the materialization's syncSchedule paces commits: schedtool migrate does it.",
	LegacyUpdateDelay:        "Remove advanced.updateDelay and give the delay as the materialization's syncSchedule (schedtool migrate).",
	OffEnumScheduleValue:     "Use one of the values the connector's schema lists, or move the schedule to the materialization's syncSchedule, which takes any duration.",
	ConnectorScheduleCrashes: "Change the fast-sync window so that it does not cross the daylight-saving change the message names, or move the schedule to the materialization's syncSchedule.",
	ConnectorScheduleInUse:   "Run schedtool migrate to move the schedule to the materialization's syncSchedule; nothing is wrong until then.",
	SealedSchedule:           "Set the schedule's value in sops.overlay (unencrypted) so that schedtool can read it, or decrypt the config.",
	SecretSchedule:           "Move the schedule out of the secret: remove the secret's pointer (or point it elsewhere) and write the schedule in the config, which schedtool migrate then moves; or set the connector's off state in the secret itself and add the materialization syncSchedule by hand.",
	DefinedInSeveralCatalogs: "Nothing to fix when each catalog is published on its own (test catalogs, staging beside prod); migrate every definition alike, and delete a migrated copy left in the tree, since census counts the name with its least migrated definition.",
}

// HowToFix is how to fix what rule id finds, "" for an unknown rule.
func HowToFix(id string) string { return ruleFixes[id] }
