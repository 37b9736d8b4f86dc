# Run by test/support/redmine-server.ts with `bin/rails runner` after the
# migrations and the default data: turns the REST API and login_required on,
# makes the admin usable, lets a Manager create an issue already closed,
# adds the gateway's own user and a customer, each with an API key, and prints what the tests need as one JSON line.
require 'json'

Setting.rest_api_enabled = '1'
Setting.login_required = '1'
Setting.default_language = 'en'

admin = User.find_by_login('admin')
admin.must_change_passwd = false
admin.save!

def user_with_key(login, firstname, lastname)
  user = User.find_by_login(login) || User.new(firstname: firstname, lastname: lastname, mail: "#{login}@example.test", language: 'en')
  user.login = login
  user.password = user.password_confirmation = "#{login}-password-1"
  user.save!
  user
end

# Lets a Manager (and so the admin) create an issue already closed: a
# workflow transition from "new issue" (status 0) to the first closed status.
manager = Role.find_by(name: 'Manager')
closed = IssueStatus.where(is_closed: true).order(:position).first
Tracker.all.each do |tracker|
  WorkflowTransition.find_or_create_by!(tracker_id: tracker.id, role_id: manager.id, old_status_id: 0, new_status_id: closed.id)
end

gateway = user_with_key('gateway', 'Threadgate', 'Gateway')
customer = user_with_key('ann', 'Ann', 'Customer')

puts JSON.generate(
  admin_key: admin.api_key,
  gateway_key: gateway.api_key,
  gateway_id: gateway.id,
  gateway_login: gateway.login,
  customer_key: customer.api_key,
  customer_id: customer.id,
  customer_login: customer.login,
  manager_role_id: Role.find_by(name: 'Manager').id,
  reporter_role_id: Role.find_by(name: 'Reporter').id,
  closed_status_id: IssueStatus.where(is_closed: true).order(:position).first.id,
  open_status_id: IssueStatus.where(is_closed: false).order(:position).first.id
)
