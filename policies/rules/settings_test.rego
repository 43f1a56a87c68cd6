package cloudorch_test.settings

import data.cloudorch.rules.settings
import data.cloudorch_test.fixtures

test_shipped_settings_are_valid if {
	count(settings.violations) == 0 with input as fixtures.compliant
}

test_missing_settings_deny_everything if {
	vs := settings.violations with input as fixtures.compliant with data.settings as {}
	count(vs) == 21
	{v.rule | some v in vs} == {"settings-valid"}
}

test_missing_allowlists_deny_everything if {
	vs := settings.violations with input as fixtures.compliant with data.allowlists as "none"
	count(vs) == 3
}

test_wrong_types_are_named if {
	vs := settings.violations with input as fixtures.compliant
		with data.settings.nodeLimits.production as "200"
		with data.settings.requiredTags as ["team", 1]
	{v.message | some v in vs} == {
		"policy data is invalid: data.settings.nodeLimits.production must be number",
		"policy data is invalid: data.settings.requiredTags must hold strings",
	}
}

# Rego orders every number before every string, so a string grant would allow any override.
test_override_grants_must_be_numbers if {
	vs := settings.violations with input as fixtures.compliant
		with data.settings.cost.allowedOverrides as {"a/b": "20000"}
	{v.message | some v in vs} == {"policy data is invalid: data.settings.cost.allowedOverrides[a/b] must be a number"}
}

test_new_pool_settings_are_typed if {
	vs := settings.violations with input as fixtures.compliant
		with data.settings.gpuTaint.required as "false"
		with data.settings.foreignNodegroups.allowDeletion as null
	{v.message | some v in vs} == {
		"policy data is invalid: data.settings.gpuTaint.required must be boolean",
		"policy data is invalid: data.settings.foreignNodegroups.allowDeletion must be boolean",
	}
}

test_access_addon_and_readiness_settings_are_typed if {
	vs := settings.violations with input as fixtures.compliant
		with data.settings.access.clusterAdminPrincipals as "arn:aws:iam::*:role/admin"
		with data.settings.coreAddons.required as "yes"
		with data.settings.coreAddons.names as ["vpc-cni", 7]
		with data.settings.upgradeReadiness.enforce as "on"
	{v.message | some v in vs} == {
		"policy data is invalid: data.settings.access.clusterAdminPrincipals must be array",
		"policy data is invalid: data.settings.coreAddons.required must be boolean",
		"policy data is invalid: data.settings.coreAddons.names must hold strings",
		"policy data is invalid: data.settings.upgradeReadiness.enforce must be boolean",
	}
}

test_admin_patterns_must_be_strings if {
	vs := settings.violations with input as fixtures.compliant with data.settings.access.clusterAdminPrincipals as [null]
	{v.message | some v in vs} == {"policy data is invalid: data.settings.access.clusterAdminPrincipals must hold strings"}
}

test_approval_settings_are_typed if {
	vs := settings.violations with input as fixtures.compliant
		with data.settings.approvals.productionDeletion as "true"
	{v.message | some v in vs} == {"policy data is invalid: data.settings.approvals.productionDeletion must be boolean"}
}
