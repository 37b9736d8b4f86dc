#!/usr/bin/perl
# Run by test/support/request-tracker-server.ts after `rt-setup-database
# --action init`, with RT_SITE_CONFIG and RT_SITE_CONFIG_DIR naming the test
# instance's config: adds the users the tests act as, each with an auth token
# for REST2 (`Authorization: token <t>`), grants their rights, and prints what
# the tests need as one JSON line.
#
# Rights are granted globally (on RT::System), so they hold in every queue a
# test makes (test/support/request-tracker.ts, newQueue); tests keep apart by
# queue, not by rights:
#   gateway   (privileged)   reads every ticket, its history and files, replies
#                            (correspond), comments and changes tickets.
#   agent     (privileged)   staff: the same, sees RT's sent mail, may delete.
#   customer  (unprivileged) creates tickets; as a Requestor sees and replies on
#                            their own tickets only (RT's usual self-service).
#   outsider  (privileged)   no rights at all: for 403 answers.
# root keeps RT's default password ("password") for basic auth (queues).
use strict;
use warnings;
use lib "/usr/share/request-tracker5/lib";
use RT -init;
use JSON ();

my $system = RT->SystemUser;

sub user_with_token {
    my (%args) = @_;
    my $user = RT::User->new($system);
    my ($id, $msg) = $user->Create(
        Name         => $args{name},
        RealName     => $args{real_name},
        EmailAddress => "$args{name}\@example.test",
        Password     => "$args{name}-password-1",
        Privileged   => $args{privileged},
    );
    die "RT::User->Create($args{name}): $msg\n" unless $id;
    my $token = RT::AuthToken->new($system);
    my ($token_id, $token_msg, $authstring) = $token->Create(Owner => $user->Id, Description => 'threadgate tests');
    die "RT::AuthToken->Create($args{name}): $token_msg\n" unless $token_id;
    return ($user, $authstring);
}

sub grant {
    my ($principal, $what, @rights) = @_;
    for my $right (@rights) {
        my ($ok, $msg) = $principal->GrantRight(Right => $right, Object => RT->System);
        die "GrantRight($right to $what): $msg\n" unless $ok;
    }
}

# What the gateway needs, no more: it does not see the mail RT sent
# (ShowOutgoingEmail), so EmailRecord transactions are hidden from it.
# docs/ticket-systems.md, "Request Tracker", lists the same rights.
my @gateway_rights = qw(SeeQueue ShowTicket ShowTicketComments ReplyToTicket CommentOnTicket);

my ($gateway, $gateway_token) = user_with_token(name => 'gateway', real_name => 'Threadgate Gateway', privileged => 1);
grant($gateway->PrincipalObj, 'gateway', @gateway_rights);

my ($agent, $agent_token) = user_with_token(name => 'agent', real_name => 'Sam Agent', privileged => 1);
grant($agent->PrincipalObj, 'agent', @gateway_rights, qw(CreateTicket ModifyTicket OwnTicket TakeTicket StealTicket ShowOutgoingEmail DeleteTicket));

my ($customer, $customer_token) = user_with_token(name => 'ann', real_name => 'Ann Customer', privileged => 0);

my ($outsider, $outsider_token) = user_with_token(name => 'outsider', real_name => 'Otto Outsider', privileged => 1);

# The customer's side: any unprivileged user may open a ticket in a queue it
# sees; a ticket's Requestors see it and reply on it.
my $unprivileged = RT::Group->new($system);
$unprivileged->LoadSystemInternalGroup('Unprivileged');
die "no Unprivileged group\n" unless $unprivileged->Id;
grant($unprivileged->PrincipalObj, 'Unprivileged', qw(SeeQueue CreateTicket));
my $requestor = RT::Group->new($system);
$requestor->LoadRoleGroup(Object => RT->System, Name => 'Requestor');
die "no Requestor role group\n" unless $requestor->Id;
grant($requestor->PrincipalObj, 'Requestor', qw(ShowTicket ReplyToTicket));

my $root = RT::User->new($system);
$root->Load('root');

print JSON::encode_json({
    root_id          => $root->Id + 0,
    root_name        => 'root',
    root_password    => 'password',
    gateway_token    => $gateway_token,
    gateway_id       => $gateway->Id + 0,
    gateway_name     => $gateway->Name,
    gateway_email    => $gateway->EmailAddress,
    agent_token      => $agent_token,
    agent_id         => $agent->Id + 0,
    agent_name       => $agent->Name,
    agent_email      => $agent->EmailAddress,
    customer_token   => $customer_token,
    customer_id      => $customer->Id + 0,
    customer_name    => $customer->Name,
    customer_email   => $customer->EmailAddress,
    outsider_token   => $outsider_token,
    outsider_id      => $outsider->Id + 0,
    outsider_name    => $outsider->Name,
}), "\n";
