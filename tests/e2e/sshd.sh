# sshd.sh: real OpenSSH servers on 127.0.0.1 for the remote tests (sourced
# after lib.sh). Generated keys, LogLevel VERBOSE, a plain process each (no
# daemon, no PAM); the client side is one config file for `ssh -F`.
#   ssh_setup                 keys and $SSH_CONFIG (hosts are added by start_sshd)
#   start_sshd NAME PORT      an sshd on 127.0.0.1:PORT, log $WORK/ssh/NAME.log, alias NAME
#   ssh_alias ALIAS OPTIONS   one more Host block (e.g. "HostName 127.0.0.1\n  Port P\n  ProxyJump jump")
#   auth_count NAME           how many authentications sshd NAME has accepted so far
SSH_DIR="$WORK/ssh"
SSH_CONFIG="$SSH_DIR/config"

ssh_setup() {
  command -v /usr/sbin/sshd >/dev/null || fail "openssh-server is not installed (tools/packages.txt; run tools/bootstrap)"
  mkdir -p "$SSH_DIR" /run/sshd
  chmod 700 "$SSH_DIR"
  ssh-keygen -q -t ed25519 -N '' -f "$SSH_DIR/id_ed25519" -C tvis-test
  cp "$SSH_DIR/id_ed25519.pub" "$SSH_DIR/authorized_keys"
  : > "$SSH_DIR/known_hosts"
  : > "$SSH_DIR/hosts"
  write_ssh_config
}

write_ssh_config() {
  { cat "$SSH_DIR/hosts"
    cat <<CFG
Host *
  User $(id -un)
  IdentityFile $SSH_DIR/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $SSH_DIR/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
CFG
  } > "$SSH_CONFIG"
}

ssh_alias() {
  printf 'Host %s\n  %b\n' "$1" "$2" >> "$SSH_DIR/hosts"
  write_ssh_config
}

start_sshd() {
  local name="$1" port="$2" d="$SSH_DIR/$1"
  mkdir -p "$d"
  ssh-keygen -q -t ed25519 -N '' -f "$d/host_ed25519"
  cat > "$d/sshd_config" <<CFG
Port $port
ListenAddress 127.0.0.1
HostKey $d/host_ed25519
PidFile $d/sshd.pid
AuthorizedKeysFile $SSH_DIR/authorized_keys
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowTcpForwarding yes
LogLevel VERBOSE
CFG
  /usr/sbin/sshd -D -f "$d/sshd_config" -E "$SSH_DIR/$name.log" &
  PIDS+=($!)
  echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$d/host_ed25519.pub")" >> "$SSH_DIR/known_hosts"
  ssh_alias "$name" "HostName 127.0.0.1\n  Port $port"
  wait_for_port "$port"
}

auth_count() {
  grep -c 'Accepted publickey' "$SSH_DIR/$1.log" 2>/dev/null || true
}
