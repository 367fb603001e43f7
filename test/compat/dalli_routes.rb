#!/usr/bin/ruby
# frozen_string_literal: true

# Route keys with Dalli's own client and ring (the Debian package ruby-dalli
# 3.0.6, run by Debian's /usr/bin/ruby).
#
#     /usr/bin/ruby dalli_routes.rb [--namespace NS] SERVERS KEYS > ROUTES
#
# SERVERS is TSV, one "name<TAB>weight" line per server in order; a name is
# "host:port" or a bare host (Dalli then uses port 11211 and hashes
# "host:11211"), a "[v6]:port" or a unix socket path.  KEYS has one key a
# line (UTF-8).  ROUTES gets, for each key, the name (as written in SERVERS)
# of the server Dalli::Client#get sends the key to.
#
# Nothing connects: each server is a Dalli::Protocol::Binary (the client's
# default protocol) given to the client as "host:port:weight", whose alive?
# says true without a socket, and whose request returns the server itself
# instead of talking to memcached.  So a key takes the client's whole path:
# Client#get -> perform (key.to_s, KeyManager#validate_key: namespace, and a
# key over 250 characters becomes prefix + ":md5:" + MD5 hex) ->
# Ring#server_for_key -> (one server: that server; else) crc32 of the
# validated key's bytes, the continuum's last point <= it (wrapping to the
# last point), alive? true so no failover.
#
# Dalli refuses an empty key (ArgumentError "key cannot be blank"): this
# program then fails, as does a key that is not valid UTF-8.
#
# --namespace NS  the client's :namespace option (keys hash as "NS:key").
#
#     /usr/bin/ruby dalli_routes.rb --config FILE KEYS > ROUTES
#
# The servers are FILE, Dalli's servers string (chash_export's format
# dalli, "host:port:weight,..."), given to Dalli::Client.new as it is; a
# server's name is Dalli's own, "host:port".
require 'dalli'

PROG = 'dalli_routes.rb'

def die(msg)
  warn "#{PROG}: #{msg}"
  exit 1
end

# A server that never connects: the ring sees it alive, and Client#perform
# gets the server itself back from request.
class RouteOnlyServer < Dalli::Protocol::Binary
  def alive?
    true
  end

  def request(_opcode, *_args)
    self
  end

  def connect
    raise Dalli::DalliError, "#{PROG}: #{name}: connect called"
  end
end

def read_lines(path)
  data = File.binread(path).force_encoding(Encoding::UTF_8)
  die "#{path}: not valid UTF-8" unless data.valid_encoding?
  lines = data.split("\n", -1)
  lines.pop if lines.last == '' # the newline that ends the last line
  lines
rescue SystemCallError => e
  die e.message
end

# Every key of keys (a file) by a client made from the servers string in
# config, each key's server by Dalli's name for it
def route_config(config, argv, options)
  die "usage: #{PROG} --config FILE KEYS > ROUTES" unless argv.size == 1
  spec = read_lines(config).join("\n").strip
  client = Dalli::Client.new(spec, options)
  servers = client.send(:ring).servers
  die "no servers in #{config}" if servers.empty?
  out = read_lines(argv[0]).each_with_index.map do |key, n|
    client.get(key).name
  rescue StandardError => e
    die "key #{n + 1} (#{key.inspect}): #{e.class}: #{e.message}"
  end
  $stdout.binmode
  $stdout.write(out.map { |name| "#{name}\n" }.join)
  $stdout.flush
end

def main(argv)
  options = { protocol_implementation: RouteOnlyServer }
  config = nil
  while argv.first&.start_with?('--')
    case argv.shift
    when '--namespace'
      die '--namespace needs a value' if argv.empty?
      options[:namespace] = argv.shift
    when '--config'
      die '--config needs a file' if argv.empty?
      config = argv.shift
    when '--'
      break
    else
      die "usage: #{PROG} [--namespace NS] SERVERS KEYS > ROUTES"
    end
  end
  return route_config(config, argv, options) if config

  die "usage: #{PROG} [--namespace NS] SERVERS KEYS > ROUTES" unless argv.size == 2

  names = []
  specs = []
  weights = []
  read_lines(argv[0]).each do |line|
    next if line.empty?

    name, weight, extra = line.split("\t", -1)
    die "bad server line #{line.inspect}" if weight.nil? || !extra.nil? || weight !~ /\A\d+\z/
    # Dalli splits a servers string at commas
    die "server #{name.inspect}: Dalli cannot take a name with a comma" if name.include?(',')
    # a memcached:// URI takes no weight (and Dalli 3.0.6 fails on it: no require 'uri')
    die "server #{name.inspect}: a memcached:// URI is not supported" if name.start_with?('memcached://')
    names << name
    weights << Integer(weight, 10)
    specs << if name.start_with?('/') || name =~ /\A(\[[\h:]+\]|[^:]+):\d+\z/
               "#{name}:#{weight}"
             else
               "#{name}:11211:#{weight}" # a bare host: Dalli's default port
             end
  end
  die 'no servers' if names.empty?

  client = Dalli::Client.new(specs, options)
  servers = client.send(:ring).servers
  die "Dalli made #{servers.size} servers of #{names.size}" unless servers.size == names.size
  index = {}.compare_by_identity
  seen = {}
  servers.each_with_index do |server, i|
    unless server.weight == weights[i]
      die "server #{names[i].inspect}: Dalli read #{specs[i].inspect} as weight #{server.weight}"
    end
    if seen.key?(server.name)
      die "servers #{seen[server.name].inspect} and #{names[i].inspect} are both #{server.name} to Dalli"
    end
    seen[server.name] = names[i]
    index[server] = i
  end

  out = []
  read_lines(argv[1]).each_with_index do |key, n|
    server = begin
      client.get(key)
    rescue StandardError => e
      die "key #{n + 1} (#{key.inspect}): #{e.class}: #{e.message}"
    end
    i = index[server]
    die "key #{n + 1} (#{key.inspect}): no server (#{server.inspect})" if i.nil?
    out << names[i]
  end
  $stdout.binmode
  $stdout.write(out.map { |name| "#{name}\n" }.join)
  $stdout.flush
rescue Dalli::DalliError, ArgumentError, FloatDomainError, ZeroDivisionError => e
  die "#{e.class}: #{e.message}"
end

main(ARGV.dup)
