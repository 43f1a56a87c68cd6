package cloudorch_test.required_tags

import data.cloudorch.rules.required_tags
import data.cloudorch_test.fixtures

test_all_required_tags_present_passes if {
	count(required_tags.violations) == 0 with input as fixtures.compliant
}

test_missing_tag_is_an_error if {
	vs := required_tags.violations with input as fixtures.with_tags({"environment": "dev"})
	vs == {{"rule": "required-tags", "severity": "error", "message": "tag team is required and must not be blank"}}
}

test_blank_tag_counts_as_missing if {
	vs := required_tags.violations with input as fixtures.with_tags({"team": "  ", "environment": "dev"})
	count(vs) == 1
}

test_no_tags_at_all_reports_every_key if {
	vs := required_tags.violations with input as fixtures.with_tags({})
	count(vs) == 2
}

test_keys_come_from_settings if {
	vs := required_tags.violations with input as fixtures.compliant with data.settings.requiredTags as ["cost-center"]
	count(vs) == 1
}
