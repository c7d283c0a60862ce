#!/usr/bin/perl
# A bot in Perl, for any arena game: it always plays the first legal action, speaking
# arena's JSON-lines protocol on stdin/stdout (hello -> name and version, act -> an action).
use strict;
use warnings;
$| = 1;
while (my $line = <STDIN>) {
    if ($line =~ /"type": "hello"/) {
        print qq({"name": "first-legal-pl", "version": "1.0"}\n);
    } elsif ($line =~ /"type": "act"/) {
        my ($action) = $line =~ /"legal_actions": \["([^"]*)"/;
        print "$action\n";
    } elsif ($line =~ /"type": "quit"/) {
        exit 0;
    }
}
