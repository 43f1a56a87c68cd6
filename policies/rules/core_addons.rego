# Production clusters have their core add-ons (settings.coreAddons.names: vpc-cni, coredns and
# kube-proxy by default) managed by CloudOrch, so every version step moves them to a compatible
# version; an add-on left alone falls out of its supported skew after two minors. The spec must list
# each in `addons`, and the plan may not delete one. Off when settings.coreAddons.required is false.
# Cluster deletion is exempt: its add-ons go with it.
package cloudorch.rules.core_addons

import data.cloudorch.lib

violations contains {
	"rule": "core-addons",
	"severity": "error",
	"message": sprintf("production clusters must manage the core add-ons %v, but addons does not list %v; add them (e.g. {name: %v, version: default})", [concat(", ", data.settings.coreAddons.names), concat(", ", missing), missing[0]]),
} if {
	applies
	count(missing) > 0
}

violations contains {
	"rule": "core-addons",
	"severity": "error",
	"message": sprintf("the plan deletes add-on %v, a core add-on that production clusters must keep managed; list it in addons again", [op.addonName]),
} if {
	applies
	some op in input.plan
	op.kind == "DeleteAddon"
	op.addonName in data.settings.coreAddons.names
}

applies if {
	data.settings.coreAddons.required == true
	lib.is_production
	not lib.deleting
}

listed := {a.name | some a in object.get(input.cluster, "addons", [])}

# In the settings' order, so the message reads the same every time.
missing := [name | some name in data.settings.coreAddons.names; not name in listed]
