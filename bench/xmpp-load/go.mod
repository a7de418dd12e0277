module fcm-emu/bench/xmpp-load

go 1.19
