module fcm-emu/bench/churn-load

go 1.19
