# SPDX-License-Identifier: MIT
# UmlbedStrict: strict mode for the Perl tests, as tests/lib/strict.sh is for the shell ones. Under CI=true (as
# GitHub and GitLab set it; CI=1 too) or UMLBED_STRICT=1, a missing tool, kernel or input fails its test instead of
# skipping it, so a clean room that lacks something cannot pass by skipping it.
package UmlbedStrict;

use strict;
use warnings;

use Exporter qw(import);
use Test::More ();

our @EXPORT_OK = qw(strict_mode prereq_skip_all prereq_skip);

sub strict_mode {
	return ($ENV{UMLBED_STRICT} // '') eq '1' || ($ENV{CI} // '') =~ /^(?:true|1)$/;
}

# Ends the test file before its first test: a SKIP plan, or under strict mode one failed test naming what is missing.
sub prereq_skip_all {
	my ($why) = @_;
	Test::More::plan(skip_all => $why) unless strict_mode();
	Test::More::plan(tests => 1);
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	Test::More::fail("missing prerequisite: $why");
	exit;
}

# In a SKIP block: skips COUNT tests, or under strict mode fails one naming what is missing; either way it leaves
# the block.
sub prereq_skip {
	my ($why, $count) = @_;
	Test::More::skip($why, $count) unless strict_mode();
	local $Test::Builder::Level = $Test::Builder::Level + 1;
	Test::More::fail("missing prerequisite: $why");
	no warnings 'exiting';
	last SKIP;
}

1;
